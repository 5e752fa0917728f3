"""How entries are kept: packed columns, the id index, worker processes and pipes, the cache directory. Only this layer knows
packed offsets and slot positions."""
