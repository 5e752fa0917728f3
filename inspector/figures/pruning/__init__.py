"""The pruning preview of one session: settings, the TTL gate, the pruner's result, savings, expiries."""
