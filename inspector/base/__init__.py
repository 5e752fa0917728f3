"""The plain helpers every layer may use: the injectable clock, inert text for terminals, bounded reads of user files."""
