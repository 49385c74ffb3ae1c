"""The frozen release: table schemas, freezing, the descriptor, verification, archives."""
