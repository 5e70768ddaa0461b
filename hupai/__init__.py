"""hupai 胡牌: read a winning mahjong hand from a photo and score it under Chinese city rules.

Everything is imported under this one name: :mod:`hupai.scoring` (the pure rules engine),
:mod:`hupai.vision` (reading photos), :mod:`hupai.datasets` (label formats, the synthetic
renderer), :mod:`hupai.ledger` (a table's whole game), :mod:`hupai.service` (the HTTP service
and page), :mod:`hupai.models` (the shipped models), and the CLI (:mod:`hupai.cli`). Importing
hupai imports none of them.
"""
