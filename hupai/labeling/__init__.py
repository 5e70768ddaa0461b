"""Batch labelling of a folder of photos (``hupai label``, docs/labeling.md), and the Label
Studio loop around it: the ML backend (:mod:`hupai.labeling.backend`) and retraining from
corrections (:mod:`hupai.labeling.retrain`).

The job reads every photo under a folder with the detector and writes, into an output folder:
the Ultralytics layout (``images/`` linked or copied, ``labels/*.txt``, ``data.yaml``,
``classes.txt``), Label Studio tasks with the boxes as predictions, COCO JSON, the readings
(``readings.jsonl`` and ``readings.csv``: tiles, structure, warnings, the score when the
caller scores) and optional contact sheets of annotated photos (``previews/``), with
``report.json`` listing what could not be read and what was left alone.

It is resumable and careful with people's work:

* Every photo's detections are kept in a manifest (``.hupai/manifest.json``, with a journal
  appended as photos finish), so a second run skips the photos already done (same bytes,
  same model and threshold) and rebuilds the outputs from the manifest.
* Each file is written atomically (a temporary file, then a rename).
* The manifest remembers the hash of every file hupai wrote. A file whose content is not one
  hupai wrote — a label a person corrected — is never replaced unless ``overwrite``; the
  report lists it (a collected file such as ``coco.json`` is then written beside it as
  ``coco.new.json``).
* A photo that cannot be read is listed in the report; the run goes on.

Photos are read by worker processes, each with its own onnxruntime session
(``engine="local"``), or by Ray actors (``engine="ray"``) that receive the model and the
photos' bytes, so that they may run on other machines.

The modules: :mod:`~hupai.labeling.options` (what a job is given and reports),
:mod:`~hupai.labeling.store` (manifest, journal, lock), :mod:`~hupai.labeling.photos`,
:mod:`~hupai.labeling.read` (one photo), :mod:`~hupai.labeling.engines`,
:mod:`~hupai.labeling.outputs`, :mod:`~hupai.labeling.progress`, :mod:`~hupai.labeling.job`.
"""

from hupai.labeling.job import default_workers, run_label_job, same_settings
from hupai.labeling.options import (
    ENGINES,
    FORMATS,
    IMAGE_MODES,
    IMAGE_SUFFIXES,
    LS_LOCAL_FILES,
    LabelJobError,
    LabelOptions,
    LabelReport,
    Scorer,
)
from hupai.labeling.outputs import Outputs, output_stem
from hupai.labeling.photos import Photo, scan
from hupai.labeling.progress import Progress
from hupai.labeling.read import label_photo, reading_of, thumbnail
from hupai.labeling.store import Store, atomic_write, sha256_bytes, sha256_file

__all__ = [
    "ENGINES",
    "FORMATS",
    "IMAGE_MODES",
    "IMAGE_SUFFIXES",
    "LS_LOCAL_FILES",
    "LabelJobError",
    "LabelOptions",
    "LabelReport",
    "Outputs",
    "Photo",
    "Progress",
    "Scorer",
    "Store",
    "atomic_write",
    "default_workers",
    "label_photo",
    "output_stem",
    "reading_of",
    "run_label_job",
    "same_settings",
    "scan",
    "sha256_bytes",
    "sha256_file",
    "thumbnail",
]
