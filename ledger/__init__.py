"""The table ledger: a table's whole game kept in a database (SQLite by default, PostgreSQL by
URL), shared by the service (``/v1/tables``) and ``hupai table``. The game rules themselves are
pure, in :mod:`hupai.scoring.game`; this package stores hands and their derived figures."""
