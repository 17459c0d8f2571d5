"""What the course's notebooks import: instruments (model -> draw -> explore) and checks."""
