"""The game as data: packs, their schema and catalog, the state view over a pack, the formats of answer
steps and tool results, entity linking over the catalog."""
