package tools

import (
	"context"

	"github.com/hermes-acp/hermes-acp/tools/internal/fuzzy"
)

// The fuzzy find-and-replace engine lives in package tools/internal/fuzzy;
// this file is its call site for the patch tool and the V4A applier.

// FuzzyReplace is hermes-agent's fuzzy_find_and_replace: it replaces
// oldString by newString in content with the first of nine matching
// strategies that finds a region (unique unless replaceAll). Failures are
// *fuzzy.Error values whose text the model reads verbatim; when ctx is done
// it returns ctx's error, wrapped. See [fuzzy.Replace]. bench/limits
// measures it.
func FuzzyReplace(ctx context.Context, content, oldString, newString string, replaceAll bool) (fuzzy.Result, error) {
	return fuzzy.Replace(ctx, content, oldString, newString, replaceAll)
}
