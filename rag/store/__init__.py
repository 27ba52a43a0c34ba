"""LanceDB: connections, table rows and filters, the knowledge tables and the workflow index."""
