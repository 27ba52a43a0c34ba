"""In-memory and over-HTTP fakes of the ports and services the code talks to."""
