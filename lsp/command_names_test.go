package lsp

import "github.com/anchorage-dev/anchorage/lsp/command"

// The commands' names, as the tests send them.
var (
	cmdCallers            = string(command.Callers.Name())
	cmdCallees            = string(command.Callees.Name())
	cmdBlastRadius        = string(command.BlastRadius.Name())
	cmdInheritance        = string(command.Inheritance.Name())
	cmdIndexStatus        = string(command.IndexStatus.Name())
	cmdSearch             = string(command.Search.Name())
	cmdSearchUsed         = string(command.SearchUsed.Name())
	cmdRoutingStats       = string(command.RoutingStats.Name())
	cmdReindex            = string(command.Reindex.Name())
	cmdContextInject      = string(command.ContextInject.Name())
	cmdMemoryRecord       = string(command.MemoryRecordCorrection.Name())
	cmdMemoryPropose      = string(command.MemoryPropose.Name())
	cmdMemoryApprove      = string(command.MemoryApprove.Name())
	cmdMemoryApproveAll   = string(command.MemoryApproveAll.Name())
	cmdMemoryReject       = string(command.MemoryReject.Name())
	cmdMemoryList         = string(command.MemoryList.Name())
	cmdMemoryProposals    = string(command.MemoryProposals.Name())
	cmdMemoryReanchor     = string(command.MemoryReanchor.Name())
	cmdMemoryExampleRules = string(command.MemoryExampleRules.Name())
	cmdMemoryUseExample   = string(command.MemoryUseExample.Name())
	cmdMemoryDeleteRule   = string(command.MemoryDeleteRule.Name())
	cmdAnchorsStatus      = string(command.SlotsStatus.Name())
	cmdAnchorsSet         = string(command.SlotsSet.Name())
	cmdAnchorsPin         = string(command.SlotsPin.Name())
	cmdAnchorsUnpin       = string(command.SlotsUnpin.Name())
	cmdMemorySearch       = string(command.MemorySearch.Name())
	cmdStats              = string(command.Stats.Name())
)
