-- Memory commands: :AnchorageApprove, :AnchorageCorrect, :AnchorageInject
-- and :AnchorageSlots, over the server's anchorage.memory.*,
-- anchorage.context.inject and anchorage.anchors.* commands. Also wraps
-- the memory commands that code actions run (approving a proposal from
-- its hint) to say what they did and refresh the code lenses.
local anchorage = require('anchorage')
local P = require('anchorage.protocol')
local compat = require('anchorage.compat')

local levels = vim.log.levels
local notify = anchorage.notify
local val, nonempty, client_or_warn = anchorage.val, anchorage.nonempty, anchorage.client_or_warn

local M = {}

--- The server's limit on a correction (memory.MaxCorrectionBytes).
M.max_correction_bytes = 10 * 1024
--- The server's default budget of anchorage.context.inject.
M.default_budget = 1500

local function shorten(s, n)
  s = vim.trim(tostring(s or ''):gsub('%s+', ' '))
  if vim.fn.strchars(s) > n then
    return vim.fn.strcharpart(s, 0, n - 1) .. '…'
  end
  return s
end

local function plural(n, word)
  return string.format('%d %s%s', n, word, n == 1 and '' or 's')
end
M.plural = plural

local function is_unknown_command(err)
  local msg = type(err) == 'table' and err.message or tostring(err)
  return tostring(msg):lower():find('unknown command', 1, true) ~= nil
end

--- Runs a server command, handing errors to on_error (default: shown).
local request = anchorage.exec_command

--- Refreshes the code lenses of the visible buffers (the server's
--- workspace/codeLens/refresh is not supported by every Neovim).
function M.refresh_lenses()
  if not anchorage.config().codelens then
    return
  end
  local codelens = require('anchorage.codelens')
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    codelens.refresh(vim.api.nvim_win_get_buf(win))
  end
end

-- Proposals --------------------------------------------------------------

--- The pending proposals of an anchorage.memory.propose or
--- anchorage.memory.proposals answer, strongest first.
---@param answer anchorage.ProposalsResult|nil
---@return anchorage.MemoryProposal[]
function M.pending(answer)
  local out = {}
  for _, p in ipairs(val(answer and answer.proposals) or {}) do
    if p.status == 'pending' then
      table.insert(out, p)
    end
  end
  table.sort(out, function(a, b)
    local pa, pb = tonumber(val(a.priority)) or 0, tonumber(val(b.priority)) or 0
    if pa ~= pb then
      return pa < pb
    end
    return a.id < b.id
  end)
  return out
end

--- A pending proposal as its diagnostic's data carries it (the server
--- sends its text, scope and strength there: nothing is read out of the
--- message), for proposals that anchorage.memory.propose did not answer
--- (made by the CLI or another session), from a server without
--- anchorage.memory.proposals. nil when the data holds no proposal.
---@param data anchorage.FeatureProposalData|any a proposal diagnostic's data
function M.proposal_from_data(data)
  if type(data) ~= 'table' then
    return nil
  end
  local id = val(data.proposal)
  local content, scope = nonempty(val(data.content)), nonempty(val(data.scope))
  if type(id) ~= 'number' or id <= 0 or id % 1 ~= 0 or not content or not scope then
    return nil
  end
  return {
    id = id,
    status = 'pending',
    category = nonempty(val(data.category)) or 'rule',
    scope = scope,
    content = content,
    frequency = tonumber(val(data.frequency)) or 0,
    confidence = 0,
    language = nonempty(val(data.language)),
    project = nonempty(val(data.project)),
    conflict = nonempty(val(data.conflict)),
    file = nonempty(val(data.file)),
  }
end

--- The pending proposals the server's hints show, in every buffer.
function M.diagnostic_proposals()
  local out = {}
  for _, d in ipairs(vim.diagnostic.get()) do
    local lsp = type(d.user_data) == 'table' and d.user_data.lsp or nil
    local data = type(lsp) == 'table' and val(lsp.data) or nil
    local id = type(data) == 'table' and tonumber(val(data.proposal)) or nil
    if d.source == 'anchorage' and id and (lsp.code == 'proposal' or d.code == 'proposal') then
      local p = M.proposal_from_data(data)
      if p then
        table.insert(out, p)
      end
    end
  end
  return out
end

--- The proposals of the propose answer, then those only the hints show.
function M.merge_proposals(proposed, from_diagnostics)
  local seen, out = {}, {}
  for _, list in ipairs({ proposed, from_diagnostics }) do
    for _, p in ipairs(list) do
      if not seen[p.id] then
        seen[p.id] = true
        table.insert(out, p)
      end
    end
  end
  return out
end

--- Every pending proposal of any session, strongest first, to on_list:
--- the answer of anchorage.memory.proposals. From an older server that does
--- not know that command, the pending proposals of the propose answer
--- (proposed), then those only the hint diagnostics show.
function M.list_pending(client, bufnr, proposed, on_list)
  request(client, P.memoryProposals, nil, bufnr, function(answer)
    on_list(M.pending(answer))
  end, function(err)
    if is_unknown_command(err) then
      on_list(M.merge_proposals(M.pending(proposed), M.diagnostic_proposals()))
      return true
    end
    return false
  end)
end

--- One proposal as a line of the picker.
function M.format_proposal(p)
  if p.all then
    return string.format('All %s', plural(#p.all, 'pending proposal'))
  end
  local confidence = tonumber(val(p.confidence)) or 0
  local line = string.format('%s  [%s, %s, %s]', shorten(p.content, 80), p.scope or '?',
    plural(tonumber(val(p.frequency)) or 0, 'correction'),
    confidence > 0 and string.format('confidence %.2f', confidence) or 'from another session')
  if nonempty(p.conflict) then
    line = line .. ' — ' .. p.conflict
  end
  return line
end

--- The scopes the proposals can be approved with: as proposed, universal,
--- and the language or project scope when every proposal has one.
---@return table list of { label, scope } (scope nil: as proposed)
function M.scope_choices(proposals)
  local scopes, seen = {}, {}
  local all_universal, all_lang, all_proj = true, true, true
  local langs, projects, lseen, pseen = {}, {}, {}, {}
  local every_lang, every_proj = true, true
  for _, p in ipairs(proposals) do
    if not seen[p.scope] then
      seen[p.scope] = true
      table.insert(scopes, p.scope)
    end
    all_universal = all_universal and p.scope == 'universal'
    all_lang = all_lang and tostring(p.scope):find('^language:') ~= nil
    all_proj = all_proj and tostring(p.scope):find('^project:') ~= nil
    local l, pr = nonempty(p.language), nonempty(p.project)
    every_lang = every_lang and l ~= nil
    every_proj = every_proj and pr ~= nil
    if l and not lseen[l] then
      lseen[l] = true
      table.insert(langs, 'language:' .. l)
    end
    if pr and not pseen[pr] then
      pseen[pr] = true
      table.insert(projects, 'project:' .. pr)
    end
  end
  local out = { { label = 'As proposed (' .. table.concat(scopes, ', ') .. ')' } }
  if not all_universal then
    table.insert(out, { label = 'Universal (every project and language)', scope = 'universal' })
  end
  if every_lang and #langs > 0 and not all_lang then
    table.insert(out, { label = 'Language (' .. table.concat(langs, ', ') .. ')', scope = 'language' })
  end
  if every_proj and #projects > 0 and not all_proj then
    table.insert(out, { label = 'Project (' .. table.concat(projects, ', ') .. ')', scope = 'project' })
  end
  return out
end

--- The server's scope choices (anchorage.memory.scopeChoices) as
--- M.scope_choices lists them: { label, scope } (scope nil: as proposed).
function M.server_scope_choices(choices)
  local out = {}
  for _, c in ipairs(type(choices) == 'table' and choices or {}) do
    local label = tostring(val(c.label) or '')
    if nonempty(val(c.description)) then
      label = label .. ' (' .. c.description .. ')'
    end
    table.insert(out, { label = label, scope = nonempty(val(c.scope)) })
  end
  return out
end

--- A location's file for messages: relative to its workspace folder (the
--- server's path, else the rule's anchor file, else relative to the
--- current directory).
---@param loc anchorage.RuleLocation
---@param rule anchorage.MemoryRule
local function location_file(loc, rule)
  return nonempty(val(loc.path)) or nonempty(val(rule.anchor) and rule.anchor.file)
    or vim.fn.fnamemodify(vim.uri_to_fname(loc.uri), ':~:.')
end

--- What an approval did, in one line.
---@param v anchorage.ApprovalView
function M.approval_summary(v)
  if nonempty(val(v.summary)) then
    return v.summary -- the server's
  end
  -- An older server: told here the way newer servers tell it.
  local rule = val(v.rule) or {}
  local s = string.format('%s rule %s (%s): %s', val(v.merged) == true and 'merged into' or 'approved as',
    tostring(rule.id), tostring(rule.scope), shorten(rule.content, 80))
  local loc = val(v.location)
  if loc and v.anchor_status == 'anchored' then
    s = s .. string.format(' — example %s (%s:%d)', nonempty(loc.symbol) or 'file', location_file(loc, rule),
      tonumber(loc.line) or 0)
  elseif nonempty(v.anchor_note) then
    s = s .. ' — ' .. v.anchor_note
  end
  local sup = val(v.superseded)
  if type(sup) == 'table' and #sup > 0 then
    s = s .. '; replaces rule ' .. table.concat(vim.tbl_map(tostring, sup), ', ')
  end
  return s
end

--- What approving several rules did, in one message: each rule's text
--- and where its example is. One approval gets approval_summary.
---@param views anchorage.ApprovalView[]
function M.approvals_message(views)
  if #views == 1 then
    return M.approval_summary(views[1])
  end
  local each = {}
  for _, v in ipairs(views) do
    local rule = val(v.rule) or {}
    local loc = val(v.location)
    local where = ''
    if loc and v.anchor_status == 'anchored' then
      where = string.format(' (%s:%d)', location_file(loc, rule), tonumber(loc.line) or 0)
    end
    table.insert(each, string.format('“%s”%s', shorten(rule.content, 60), where))
  end
  return string.format('approved %s: %s', plural(#views, 'rule'), table.concat(each, '; '))
end

local function announce(views)
  if #views == 0 then
    return
  end
  notify(M.approvals_message(views), levels.INFO)
  M.refresh_lenses()
end

--- :AnchorageApprove: proposes from the open corrections, then asks which
--- proposal to approve (or all) and with which scope.
function M.approve()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_or_warn(bufnr)
  if not client then
    return
  end
  request(client, P.memoryPropose, nil, bufnr, function(answer)
    -- Proposals made elsewhere (the CLI, an earlier session) are not in the
    -- answer: list every pending one.
    M.list_pending(client, bufnr, answer, function(proposals)
      if #proposals == 0 then
        notify('no memory proposals are pending: record corrections with :AnchorageCorrect (three alike make a proposal)',
          levels.INFO)
        return
      end
      local items = vim.list_extend({}, proposals)
      if #proposals > 1 then
        table.insert(items, 1, { all = proposals })
      end
      vim.ui.select(items, {
        prompt = string.format('Approve which rule? (%s pending) ', #proposals),
        format_item = M.format_proposal,
        kind = 'anchorage.proposal',
      }, function(choice)
        if not choice then
          return
        end
        local chosen = choice.all or { choice }
        local function approve(scope)
          if choice.all then
            request(client, P.memoryApproveAll, scope and { scope = scope } or vim.empty_dict(), bufnr,
              function(res)
              announce(val(res and res.approvals) or {})
            end)
          else
            request(client, P.memoryApprove, { id = choice.id, scope = scope }, bufnr, function(res)
              announce({ res })
            end)
          end
        end
        local function offer(scopes)
          if #scopes == 1 then
            approve(nil)
            return
          end
          -- On Neovim's built-in vim.ui.select (inputlist), the next prompt
          -- would start on the line of the answer just typed.
          vim.cmd('redraw')
          vim.api.nvim_echo({ { '' } }, false, {})
          vim.ui.select(scopes, {
            prompt = 'Scope of the approved rule: ',
            format_item = function(c)
              return c.label
            end,
            kind = 'anchorage.scope',
          }, function(sc)
            if sc then
              approve(sc.scope)
            end
          end)
        end
        -- The server says which scopes fit; an older server without
        -- anchorage.memory.scopeChoices gets M.scope_choices.
        local ids = vim.tbl_map(function(p)
          return p.id
        end, chosen)
        request(client, P.memoryScopeChoices, { ids = ids }, bufnr, function(res)
          local scopes = M.server_scope_choices(val(res and res.choices))
          offer(#scopes > 0 and scopes or M.scope_choices(chosen))
        end, function(err)
          if is_unknown_command(err) then
            offer(M.scope_choices(chosen))
            return true
          end
          return false
        end)
      end)
    end)
  end)
end

-- Corrections --------------------------------------------------------------

--- The correction in selected lines: without comment markers and blank
--- lines, joined by spaces.
function M.correction_from_lines(lines)
  local parts = {}
  for _, l in ipairs(lines) do
    l = l:gsub('/%*+', ' '):gsub('%*+/', ' ')
    l = l:gsub('^%s*//+', ''):gsub('^%s*#+', ''):gsub('^%s*%-%-+', ''):gsub('^%s*;+', ''):gsub('^%s*%*+', '')
    l = vim.trim(l)
    if l ~= '' then
      table.insert(parts, l)
    end
  end
  return vim.trim((table.concat(parts, ' '):gsub('%s+', ' ')))
end

--- The arguments of anchorage.memory.recordCorrection, or nil and why.
---@param text string
---@param uri string|nil the document's, when it is a file
---@param range table|nil an LSP range in it
function M.correction_args(text, uri, range)
  text = vim.trim(text or '')
  if text == '' then
    return nil, 'the correction is empty'
  end
  if #text > M.max_correction_bytes then
    return nil, string.format('the correction is %d bytes; the limit is %d', #text, M.max_correction_bytes)
  end
  local args = { text = text }
  if uri and uri:find('^file:') then
    args.uri = uri
    args.range = range
  end
  return args
end

--- The LSP range of lines line1..line2 (1-based, whole lines), in the
--- client's position encoding.
function M.lines_range(bufnr, line1, line2, encoding)
  local last = vim.api.nvim_buf_get_lines(bufnr, line2 - 1, line2, false)[1] or ''
  local chars = #last
  if encoding == 'utf-16' or encoding == 'utf-32' or encoding == nil then
    encoding = encoding or 'utf-16'
    if compat.has('0.11') then
      chars = vim.str_utfindex(last, encoding)
    else
      -- Before 0.11: the UTF-32 and UTF-16 lengths.
      local n32, n16 = vim.str_utfindex(last)
      chars = encoding == 'utf-32' and n32 or n16
    end
  end
  return { start = { line = line1 - 1, character = 0 }, ['end'] = { line = line2 - 1, character = chars } }
end

--- :[range]AnchorageCorrect [text]: records a correction about the
--- buffer (and the lines of the range). Without text it asks, offering the
--- selected lines' text (comment markers dropped).
function M.correct(text, line1, line2)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_or_warn(bufnr)
  if not client then
    return
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  local uri = name ~= '' and not name:match('^%a[%w+.-]*://') and vim.uri_from_bufnr(bufnr) or nil
  local range = line1 and line2 and M.lines_range(bufnr, line1, line2, client.offset_encoding) or nil
  local function send(t)
    if t == nil then
      return
    end
    local args, why = M.correction_args(t, uri, range)
    if not args then
      notify(why, levels.WARN)
      return
    end
    request(client, P.memoryRecordCorrection, args, bufnr, function(res)
      local c = val(res and res.correction) or {}
      notify(string.format('recorded correction %s%s; %s (:AnchorageApprove proposes and approves)', tostring(c.id),
        nonempty(c.file) and (' (' .. c.file .. ')') or '', plural(tonumber(val(res.open_corrections)) or 0,
          'open correction')), levels.INFO)
    end)
  end
  if text and vim.trim(text) ~= '' then
    send(text)
    return
  end
  local default = ''
  if range then
    default = M.correction_from_lines(vim.api.nvim_buf_get_lines(bufnr, line1 - 1, line2, false))
  end
  vim.ui.input({ prompt = 'Correction: ', default = default }, send)
end

-- Injection --------------------------------------------------------------------

--- The register :AnchorageInject writes: the configured one, else '+'
--- when Neovim has a clipboard, else the unnamed register.
function M.register()
  local reg = anchorage.config().inject.register
  if reg then
    return reg
  end
  if vim.fn.has('clipboard') == 1 then
    return '+'
  end
  return '"'
end

--- "2 rules (412 of 1500 tokens) for users/repo.go; 1 left out for the budget"
---@param inj anchorage.MemoryInjection
function M.injection_summary(inj)
  local rules = val(inj.rules) or {}
  local tokens = val(inj.tokens) or {}
  local s = string.format('%s (%d of %d tokens)', plural(#rules, 'rule'), tonumber(val(tokens.total)) or 0,
    tonumber(val(tokens.budget)) or 0)
  if nonempty(inj.file) then
    s = s .. ' for ' .. inj.file
  end
  local dropped = tonumber(val(inj.dropped)) or 0
  if dropped > 0 then
    s = s .. string.format('; %d left out for the budget', dropped)
  end
  return s
end

--- :AnchorageInject [query]: the rules that apply to the buffer (ranked by
--- the query), with their examples, as Markdown in a register.
function M.inject(query)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_or_warn(bufnr)
  if not client then
    return
  end
  local args = { budget = anchorage.config().inject.budget or M.default_budget }
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name ~= '' and not name:match('^%a[%w+.-]*://') then
    args.uri = vim.uri_from_bufnr(bufnr)
  end
  if query and vim.trim(query) ~= '' then
    args.query = vim.trim(query)
  end
  request(client, P.contextInject, args, bufnr, function(inj)
    local md = nonempty(inj and inj.markdown)
    if not md or #(val(inj.rules) or {}) == 0 then
      notify('no rules apply here: nothing was copied', levels.INFO)
      return
    end
    local reg = M.register()
    vim.fn.setreg(reg, md)
    notify(string.format('copied %s to register %s', M.injection_summary(inj), reg), levels.INFO)
  end)
end

-- Slots ------------------------------------------------------------------------

--- One working-memory slot as a line of the picker.
---@param s anchorage.RecallSlotStatus
function M.format_slot(s)
  local anchor = val(s.anchor)
  local line = string.format('%s %s: %s', val(s.pinned) == true and '[pinned]' or '[      ]', tostring(s.slot),
    anchor and shorten(anchor.title, 70) or '(empty)')
  if anchor then
    line = line .. '  ' .. tostring(anchor.id)
  end
  if nonempty(s.summary) then
    line = line .. ' — ' .. shorten(s.summary, 60)
  end
  return line
end

--- The actions a slot allows: unpin a pinned one, pin a filled one, set any.
---@param s anchorage.RecallSlotStatus
function M.slot_actions(s)
  local out = {}
  if val(s.pinned) == true then
    table.insert(out, { action = 'unpin', label = 'Unpin slot ' .. s.slot })
  elseif val(s.anchor) then
    table.insert(out, { action = 'pin', label = 'Pin slot ' .. s.slot .. ' to ' .. shorten(s.anchor.title, 50) })
  end
  table.insert(out, { action = 'set', label = 'Put a rule in slot ' .. s.slot .. '…' })
  return out
end

--- The name a server older than the slots commands knows a command by
--- (anchorage.anchors.* for anchorage.slots.*), or nil.
function M.former_name(command)
  for old, new in pairs(P.aliases) do
    if new == command then
      return old
    end
  end
  return nil
end

--- :AnchorageSlots: the working-memory slots A, B, C; pin, unpin or set one.
function M.slots()
  local former = false
  local function name(command)
    return former and M.former_name(command) or command
  end
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_or_warn(bufnr)
  if not client then
    return
  end
  local function show(status)
    local slots = val(status and status.slots) or {}
    if #slots == 0 then
      notify('the server reports no working memory slots', levels.INFO)
      return
    end
    vim.ui.select(slots, { prompt = 'Working memory slots: ', format_item = M.format_slot, kind = 'anchorage.slot' },
      function(slot)
        if not slot then
          return
        end
        vim.ui.select(M.slot_actions(slot), {
          prompt = 'Slot ' .. slot.slot .. ': ',
          format_item = function(a)
            return a.label
          end,
          kind = 'anchorage.slot_action',
        }, function(a)
          if not a then
            return
          end
          local function run(command, args)
            request(client, command, args, bufnr, function(next_status)
              for _, s in ipairs(val(next_status and next_status.slots) or {}) do
                if s.slot == slot.slot then
                  notify('slot ' .. M.format_slot(s), levels.INFO)
                end
              end
            end)
          end
          if a.action == 'unpin' then
            run(name(P.slotsUnpin), { slot = slot.slot })
          elseif a.action == 'pin' then
            run(name(P.slotsPin), { slot = slot.slot, id = slot.anchor.id })
          else
            request(client, P.memoryList, nil, bufnr, function(res)
              local rules = val(res and res.rules) or {}
              if #rules == 0 then
                notify('there are no rules yet', levels.INFO)
                return
              end
              vim.ui.select(rules, {
                prompt = 'Put in slot ' .. slot.slot .. ': ',
                format_item = function(r)
                  return string.format('rule %d (%s): %s', r.id, r.scope, shorten(r.content, 70))
                end,
                kind = 'anchorage.rule',
              }, function(r)
                if r then
                  run(name(P.slotsSet), { slot = slot.slot, id = 'rule:' .. r.id })
                end
              end)
            end)
          end
        end)
      end)
  end
  request(client, P.slotsStatus, nil, bufnr, show, function(err)
    if not is_unknown_command(err) then
      return false
    end
    -- A server older than the slots commands knows them by their former names.
    former = true
    request(client, M.former_name(P.slotsStatus), nil, bufnr, show, function(err2)
      if is_unknown_command(err2) then
        notify('this version of the server has no working memory slots (no "' .. P.slotsStatus .. '" command):'
          .. ' update the anchorage binary', levels.WARN)
        return true
      end
      return false
    end)
    return true
  end)
end

-- Commands run by code actions and code lenses ------------------------------------

local wrapped = { [P.memoryApprove] = true, [P.memoryApproveAll] = true,
  [P.memoryReject] = true, [P.memoryReanchor] = true,
  [P.memoryUseExample] = true, [P.memoryDeleteRule] = true,
  [P.memoryExampleRules] = true }

--- The rule lens (anchorage.memory.exampleRules): the server answers the
--- example's rules with their actions; vim.ui.select picks a rule (when
--- there are several), then an action, which opens a correction or runs
--- its server command.
local function example_rules(client, args, bufnr)
  request(client, P.memoryExampleRules, args, bufnr, function(res)
    local rules = val(res and res.rules) or {}
    if #rules == 0 then
      notify('no rules on this example any more', levels.INFO)
      return
    end
    ---@param rule anchorage.ExampleRuleView
    local function act(rule)
      local actions = val(rule.actions) or {}
      vim.ui.select(actions, {
        prompt = string.format('Rule %d: %s', rule.id, shorten(rule.content, 60)) ..
          (nonempty(rule.rationale) and (' — ' .. shorten(rule.rationale, 100)) or ''),
        format_item = function(a) return a.title end,
      }, function(a)
        if not a then
          return
        end
        if a.kind == 'open' and val(a.location) then
          local l = a.location
          require('anchorage.commands').open_location(vim.uri_to_fname(l.uri), (l.range.start.line or 0) + 1,
            (l.range.start.character or 0) + 1)
        elseif val(a.command) then
          local cmd = a.command
          local handler = vim.lsp.commands[cmd.command]
          if handler then
            handler(cmd, { client_id = client.id, bufnr = bufnr })
          else
            request(client, cmd.command, val(cmd.arguments) and cmd.arguments[1] or nil, bufnr, function()
              M.refresh_lenses()
            end)
          end
        end
      end)
    end
    if #rules == 1 then
      act(rules[1])
      return
    end
    vim.ui.select(rules, {
      prompt = 'Rules of this example',
      format_item = function(r) return string.format('rule %d: %s', r.id, shorten(r.content, 70)) end,
    }, function(r)
      if r then
        act(r)
      end
    end)
  end)
end
M.example_rules = example_rules

--- Handles the memory commands of code actions on the client side
--- (vim.lsp.commands): they run on the server as before, then the answer is
--- shown and the code lenses refreshed.
function M.register_handlers()
  for name in pairs(wrapped) do
    vim.lsp.commands[name] = function(command, ctx)
      local client = ctx and ctx.client_id and vim.lsp.get_client_by_id(ctx.client_id) or anchorage.get_client(0)
      if not client then
        notify(name .. ': no Anchorage client', levels.ERROR)
        return
      end
      if name == P.memoryExampleRules then
        example_rules(client, val(command.arguments) and command.arguments[1] or nil, ctx and ctx.bufnr)
        return
      end
      request(client, command.command, val(command.arguments) and command.arguments[1] or nil, ctx and ctx.bufnr,
        function(res)
          if name == P.memoryApprove then
            announce({ res })
          elseif name == P.memoryApproveAll then
            announce(val(res and res.approvals) or {})
          elseif name == P.memoryReject then
            notify('rejected proposal ' .. tostring(val(res and res.proposal) and res.proposal.id), levels.INFO)
          elseif name == P.memoryUseExample then
            local r = val(res and res.rule) or {}
            local a = val(r.anchor) or {}
            notify(string.format('rule %s: its example is now %s in %s', tostring(r.id), tostring(a.symbol), tostring(a.file)),
              levels.INFO)
            M.refresh_lenses()
          elseif name == P.memoryDeleteRule then
            notify('deleted rule ' .. tostring(res and res.deleted), levels.INFO)
            M.refresh_lenses()
          else
            notify(val(res.reanchored) == true and 're-anchored rule ' .. tostring(res.rule and res.rule.id)
              or ('no new example: ' .. tostring(nonempty(res.note) or '')), levels.INFO)
            M.refresh_lenses()
          end
        end)
    end
  end
end

return M
