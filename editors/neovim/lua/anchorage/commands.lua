-- The :Anchorage* user commands. Each asks the buffer's Anchorage client
-- through workspace/executeCommand (the commands are listed in the
-- server's README: anchorage.search, anchorage.callers, ...).
local anchorage = require('anchorage')
local P = require('anchorage.protocol')
local compat = require('anchorage.compat')

local levels = vim.log.levels
local notify = anchorage.notify

local M = {}

local val, nonempty, client_or_warn = anchorage.val, anchorage.nonempty, anchorage.client_or_warn

local function current_buf()
  return vim.api.nvim_get_current_buf()
end

--- Runs a server command; on_result gets its result. Errors are shown,
--- invalid arguments (InvalidParams) as a warning with the server's message.
local function exec(client, command, args, bufnr, on_result)
  anchorage.exec_command(client, command, args, bufnr, on_result, function(err)
    if type(err) == 'table' and err.code == -32602 then
      notify(err.message or tostring(err), levels.WARN)
      return true
    end
    return false
  end)
end
M.exec = exec

local function abs_path(root, file)
  if file:sub(1, 1) == '/' or not root then
    return file
  end
  return root .. '/' .. file
end

local function same_file(a, b)
  return vim.fn.fnamemodify(a, ':p') == vim.fn.fnamemodify(b, ':p')
end

--- Opens a file at a 1-based line (and byte column, or UTF-16 column
--- utf16_col as servers send them, else the line's first non-blank),
--- keeping the jump in the jumplist. Returns whether it did.
function M.open_location(path, line, col, utf16_col)
  vim.cmd("normal! m'")
  if not same_file(path, vim.api.nvim_buf_get_name(0)) then
    local ok, err = pcall(vim.cmd, 'edit ' .. vim.fn.fnameescape(path))
    if not ok then
      notify('cannot open ' .. path .. ': ' .. tostring(err), levels.ERROR)
      return false
    end
  end
  local last = vim.api.nvim_buf_line_count(0)
  line = math.max(1, math.min(tonumber(line) or 1, last))
  vim.api.nvim_win_set_cursor(0, { line, 0 })
  if utf16_col and utf16_col > 1 then
    local text = vim.api.nvim_buf_get_lines(0, line - 1, line, false)[1] or ''
    local ok, byte
    if compat.has('0.11') then
      ok, byte = pcall(vim.str_byteindex, text, 'utf-16', utf16_col - 1, false)
    else
      ok, byte = pcall(vim.str_byteindex, text, utf16_col - 1, true)
    end
    col = ok and byte + 1 or nil
  end
  if col and col > 1 then
    vim.api.nvim_win_set_cursor(0, { line, col - 1 })
  else
    vim.cmd('normal! ^')
  end
  vim.cmd('normal! zv')
  return true
end

-- Search ----------------------------------------------------------------------

local function first_line(s)
  s = nonempty(s)
  if not s then
    return ''
  end
  return vim.trim((s:gsub('\n.*', '')))
end

--- One search result as a line of the picker: ★ when several strategies
--- found it, file:line, the symbol and its kind, and the first line of its
--- doc (for text matches, the line's text). The strategy is in the prompt,
--- once; in a hybrid search each line says which backend found it.
---@param r anchorage.FeatureSearchResult a result of anchorage.search
---@param strategy string|nil the search's strategy
---@return string
function M.format_result(r, strategy)
  local star = val(r.multi_strategy) == true and '★' or ' '
  local where = string.format('%s:%d', nonempty(r.file) or '?', tonumber(val(r.line)) or 0)
  local what = nonempty(r.symbol)
  if what then
    local kind = nonempty(r.kind)
    if kind then
      what = what .. ' (' .. kind .. ')'
    end
    local doc = first_line(r.doc)
    if doc ~= '' then
      what = what .. ' — ' .. doc
    end
  else
    what = first_line(r.snippet)
  end
  local via = ''
  if strategy == 'hybrid' and nonempty(r.strategy) and r.strategy ~= strategy then
    via = '  [' .. r.strategy .. ']'
  end
  return string.format('%s %s  %s%s', star, where, what, via)
end

--- The picker's prompt: the router's strategy, confidence and reasoning.
---@param resp anchorage.FeatureSearchAnswer the answer of anchorage.search
---@return string
function M.search_prompt(resp)
  local prompt = 'Anchorage ' .. (nonempty(resp.strategy) or 'search')
  local confidence = tonumber(val(resp.confidence))
  if confidence then
    prompt = prompt .. string.format(' (%.2f)', confidence)
  end
  local reasoning = nonempty(resp.reasoning)
  if reasoning then
    prompt = prompt .. ': ' .. reasoning
  end
  if val(resp.partial) == true then
    prompt = prompt .. ' [index still building]'
  end
  local notice = nonempty(resp.notice)
  if notice then
    prompt = prompt .. ' (' .. notice .. ')'
  end
  return prompt .. ' '
end

---@param resp anchorage.FeatureSearchAnswer
local function search_used(client, resp, choice)
  local id = tonumber(val(resp.feedback_id))
  if not id or id <= 0 then
    return
  end
  local args = { id = id, file = choice.file, line = choice.line }
  compat.request(client, 'workspace/executeCommand', { command = P.searchUsed, arguments = { args } },
    function(err)
      if err then
        -- Routing statistics only: not worth interrupting the user.
        require('vim.lsp.log').warn(P.searchUsed, err)
      end
    end)
end

--- Shows the results of a search in vim.ui.select; the chosen one is
--- opened and reported with anchorage.search.used.
---@param resp anchorage.FeatureSearchAnswer|nil
function M.show_search(client, resp)
  local results = val(resp and resp.results) or {}
  if #results == 0 then
    local notice = nonempty(resp and resp.notice)
    notify(string.format('no results for "%s" (%s%s)', resp and resp.query or '', resp and resp.strategy or '?',
      notice and ': ' .. notice or ''), levels.INFO)
    return
  end
  vim.ui.select(results, {
    prompt = M.search_prompt(resp),
    format_item = function(r)
      return M.format_result(r, resp.strategy)
    end,
    kind = 'anchorage.search',
  }, function(choice)
    if not choice then
      return
    end
    local root = nonempty(choice.root) or anchorage.client_root(client)
    -- On the symbol's name (the server says where, in UTF-16 columns),
    -- so that :AnchorageCallers there asks about it.
    local line = tonumber(val(choice.name_line)) or choice.line
    if M.open_location(abs_path(root, choice.file), line, nil, tonumber(val(choice.name_column))) then
      search_used(client, resp, choice)
    end
  end)
end

--- :AnchorageSearch [query]: asks for the query when there is none.
function M.search(query)
  local bufnr = current_buf()
  local client = client_or_warn(bufnr)
  if not client then
    return
  end
  local function run(q)
    if type(q) ~= 'string' or vim.trim(q) == '' then
      return
    end
    local top_k = anchorage.config().search.top_k
    exec(client, P.search, { query = vim.trim(q), top_k = top_k }, bufnr, function(resp)
      M.show_search(client, resp)
    end)
  end
  if query and vim.trim(query) ~= '' then
    run(query)
  else
    vim.ui.input({ prompt = 'Anchorage search: ' }, run)
  end
end

-- Graph -------------------------------------------------------------------------

local graph_specs = {
  callers = { command = P.callers, title = 'callers of' },
  callees = { command = P.callees, title = 'callees of' },
  blast_radius = { command = P.blastRadius, title = 'blast radius of' },
}

--- The symbol under the cursor: the word there, qualified through
--- textDocument/prepareCallHierarchy when the cursor is on a definition
--- (UserRepository.FindByID rather than FindByID). callback(symbol, path)
--- gets the definition's file too when known.
local function resolve_symbol(client, bufnr, callback)
  local word = vim.fn.expand('<cword>')
  local identifier = word:match('^[%a_$][%w_$]*$') and word or nil
  local caps = client.server_capabilities or {}
  if not compat.is_attached(bufnr, client.id) or not val(caps.callHierarchyProvider) then
    if identifier then
      callback(identifier)
    else
      notify('no symbol under the cursor', levels.WARN)
    end
    return
  end
  compat.request(client, 'textDocument/prepareCallHierarchy', compat.position_params(client), function(err, result)
    local item = not err and type(val(result)) == 'table' and result[1] or nil
    if item and (not identifier or item.name == identifier) then
      local data = type(val(item.data)) == 'table' and item.data or {}
      callback(nonempty(data.qualified_name) or nonempty(item.detail) or item.name, nonempty(data.path))
    elseif identifier then
      callback(identifier)
    else
      notify('no symbol under the cursor', levels.WARN)
    end
  end, bufnr)
end

--- Quickfix items of a graph answer (the JSON of `anchorage graph ...
--- --json`). When def_path is given and a definition is in that file,
--- only the definitions there are listed.
---@param kind string 'callers', 'callees' or 'blast_radius'
---@param answer anchorage.AnalysisAnswer|nil
---@param root string|nil the folder the answer's paths are relative to
---@param def_path string|nil
---@return table items
function M.graph_items(kind, answer, root, def_path)
  local defs = val(answer and answer.definitions) or {}
  if def_path then
    local here = {}
    for _, d in ipairs(defs) do
      if type(d.definition) == 'table' and d.definition.path == def_path then
        table.insert(here, d)
      end
    end
    if #here > 0 then
      defs = here
    end
  end
  local items = {}
  for _, d in ipairs(defs) do
    local def = val(d.definition) or {}
    local prefix = ''
    if #defs > 1 then
      prefix = string.format('[%s %s:%s] ', def.qualified_name or '?', def.path or '?', tostring(def.line or '?'))
    end
    for _, entry in ipairs(val(d.result) or {}) do
      if kind == 'blast_radius' then
        local sym = val(entry.symbol) or {}
        local name = nonempty(sym.qualified_name) or nonempty(entry.name) or '?'
        local text = string.format('%sdepth %d: %s (%s %s)', prefix, tonumber(val(entry.depth)) or 0, name,
          nonempty(entry.via) or '?', nonempty(entry.from) or '')
        local item = { text = text }
        if nonempty(sym.path) then
          item.filename = abs_path(root, sym.path)
          local line = tonumber(val(entry.line)) or 0
          item.lnum = line > 0 and line or sym.line
          item.col = line > 0 and 0 or sym.column
        end
        table.insert(items, item)
      else
        local caller = val(entry.caller) or {}
        local callee = val(entry.callee)
        local call = (nonempty(entry.qualifier) and entry.qualifier .. '.' or '') .. (entry.name or '?')
        local target = call
        if kind == 'callees' then
          target = callee and nonempty(callee.qualified_name) or (call .. ' (outside the workspace)')
        end
        local text = string.format('%s%s → %s%s', prefix, nonempty(caller.qualified_name) or '?', target,
          val(entry.ambiguous) == true and ' (ambiguous)' or '')
        table.insert(items, {
          filename = abs_path(root, entry.path or caller.path or '?'),
          lnum = entry.line,
          col = entry.column,
          text = text,
        })
      end
    end
  end
  return items
end

local function show_items(title, items)
  local graph = anchorage.config().graph
  if graph.output == 'select' then
    vim.ui.select(items, {
      prompt = title .. ' ',
      kind = 'anchorage.graph',
      format_item = function(item)
        if item.filename then
          return string.format('%s:%d  %s', vim.fn.fnamemodify(item.filename, ':~:.'), item.lnum or 0, item.text)
        end
        return item.text
      end,
    }, function(choice)
      if choice and choice.filename then
        M.open_location(choice.filename, choice.lnum, choice.col)
      end
    end)
    return
  end
  vim.fn.setqflist({}, ' ', { title = title, items = items })
  if graph.open then
    vim.cmd('botright copen')
  end
end

--- :AnchorageCallers / :AnchorageCallees / :AnchorageBlastRadius: the
--- symbol given, else the one under the cursor.
---@param kind string 'callers', 'callees' or 'blast_radius'
---@param symbol string|nil
---@param depth number|nil
function M.graph(kind, symbol, depth)
  local spec = assert(graph_specs[kind], 'unknown graph command ' .. tostring(kind))
  local bufnr = current_buf()
  local client = client_or_warn(bufnr)
  if not client then
    return
  end
  local function run(sym, def_path)
    local args = { symbol = sym }
    if kind == 'blast_radius' then
      args.depth = depth or anchorage.config().graph.depth
    end
    exec(client, spec.command, args, bufnr, function(answer)
      local items = M.graph_items(kind, answer, anchorage.client_root(client), def_path)
      local title = string.format('Anchorage: %s %s', spec.title, sym)
      if #items == 0 then
        notify(string.format('no %s %s', spec.title, sym), levels.INFO)
        return
      end
      show_items(title, items)
    end)
  end
  if symbol and symbol ~= '' then
    run(symbol)
    return
  end
  -- A file outside the client's root (the Go toolchain's, a
  -- dependency's): the graph does not know it, and the word under the
  -- cursor would name another symbol of the project.
  local name = vim.api.nvim_buf_get_name(bufnr)
  local root = anchorage.client_root(client)
  if name ~= '' and root and not vim.startswith(vim.fn.fnamemodify(name, ':p'), root .. '/') then
    notify(string.format('%s is outside the workspace: the code graph does not know its %s',
      vim.fn.fnamemodify(name, ':t'), (kind:gsub('_', ' '))), levels.INFO)
    return
  end
  resolve_symbol(client, bufnr, run)
end

-- Index -----------------------------------------------------------------------

--- :AnchorageStatus: the server's index of each folder.
function M.status()
  local bufnr = current_buf()
  local client = client_or_warn(bufnr)
  if not client then
    return
  end
  exec(client, P.indexStatus, nil, bufnr, function(res)
    local cmd = client.config and client.config.cmd
    local lines = {
      string.format('client %d (%s)%s', client.id, type(cmd) == 'table' and table.concat(cmd, ' ') or 'anchorage serve',
        compat.is_attached(bufnr, client.id) and '' or ', not attached to this buffer'),
    }
    for _, f in ipairs(val(res and res.folders) or {}) do
      local progress = ''
      if val(f.indexing) == true then
        progress = string.format(', indexing %d/%d files', tonumber(val(f.done)) or 0, tonumber(val(f.total)) or 0)
      end
      table.insert(lines, string.format('%s: %d files, %d symbols, %d edges%s', f.root or '?',
        tonumber(val(f.files)) or 0, tonumber(val(f.symbols)) or 0, tonumber(val(f.edges)) or 0, progress))
      if nonempty(f.database) then
        table.insert(lines, '  index: ' .. f.database)
      end
    end
    notify(table.concat(lines, '\n'), levels.INFO)
  end)
end

--- :AnchorageReindex: brings every folder of the server up to date again.
function M.reindex()
  local bufnr = current_buf()
  local client = client_or_warn(bufnr)
  if not client then
    return
  end
  exec(client, P.reindex, nil, bufnr, function(res)
    local n = tonumber(val(res and res.folders)) or 0
    notify(string.format('re-indexing %d folder%s (:AnchorageStatus shows the progress)', n, n == 1 and '' or 's'),
      levels.INFO)
  end)
end

-- Commands ----------------------------------------------------------------------

local function symbol_and_depth(fargs)
  local args = vim.deepcopy(fargs)
  local depth
  if #args > 0 and args[#args]:match('^%d+$') then
    depth = tonumber(table.remove(args))
  end
  return args[1], depth
end

--- Defines the user commands (again, when setup() runs again).
function M.create()
  local create = vim.api.nvim_create_user_command
  create('AnchorageSearch', function(o)
    M.search(o.args)
  end, { nargs = '*', desc = 'Anchorage: routed search of the codebase' })
  create('AnchorageCallers', function(o)
    M.graph('callers', o.fargs[1])
  end, { nargs = '?', desc = 'Anchorage: callers of the symbol under the cursor (or given)' })
  create('AnchorageCallees', function(o)
    M.graph('callees', o.fargs[1])
  end, { nargs = '?', desc = 'Anchorage: callees of the symbol under the cursor (or given)' })
  create('AnchorageBlastRadius', function(o)
    local symbol, depth = symbol_and_depth(o.fargs)
    M.graph('blast_radius', symbol, depth)
  end, { nargs = '*', desc = 'Anchorage: what depends on the symbol under the cursor (or given) [depth]' })
  create('AnchorageReindex', function()
    M.reindex()
  end, { nargs = 0, desc = 'Anchorage: re-index the workspace' })
  create('AnchorageStatus', function()
    M.status()
  end, { nargs = 0, desc = 'Anchorage: index status' })

  local memory = require('anchorage.memory')
  create('AnchorageApprove', function()
    memory.approve()
  end, { nargs = 0, desc = 'Anchorage: propose rules from the corrections and approve one (or all)' })
  create('AnchorageCorrect', function(o)
    if o.range > 0 then
      memory.correct(o.args, o.line1, o.line2)
    else
      memory.correct(o.args)
    end
  end, { nargs = '*', range = true, desc = 'Anchorage: record a correction [about the lines of the range]' })
  create('AnchorageInject', function(o)
    memory.inject(o.args)
  end, { nargs = '*', desc = 'Anchorage: the rules that apply here, as Markdown, into a register [ranked by a query]' })
  create('AnchorageSlots', function()
    memory.slots()
  end, { nargs = 0, desc = 'Anchorage: working memory slots (pin, unpin, set)' })
  memory.register_handlers()
end

return M
