"""The shipped models, package data of hupai: the reader's finder and namer (ONNX) with their
manifests, ``reader.json`` naming the pair, the model card and the credits of the data and art
they were trained on. Found from the installed package (or the checkout); ``--models DIR`` /
``$HUPAI_MODELS`` name another folder."""

from pathlib import Path

#: the folder that holds them
FOLDER = Path(__file__).resolve().parent
