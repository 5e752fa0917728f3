"""The vocabulary every reader produces: entries (metadata only), diagnostics, context messages. Imports nothing of the engine."""
