"""``hupai train blend``: a namer and a partner named together — the shipped namer with a new
one (a GPU run's) as its ``blend``, to measure what the partner adds and to teach the next
distilled namer (``hupai train distill --teacher``). No torch: files and a manifest.

The blend is a folder of its own: the namer's ONNX and manifest (the manifest naming the
partner, with its weight), the partner's ONNX and manifest, and every other file the namer's
manifest names (its bonus reader, a gate) — so that :class:`hupai.vision.namer.Namer` reads it
as it reads a shipped namer. The namer's views and calibration stay as they are: they were
chosen for the namer alone (recalibrate before shipping a blend: ``hupai train calibrate``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from hupai.vision.namer import NamerError, load_namer_manifest

#: The partner's file name in the blend's folder when it would take the namer's own.
PARTNER_PREFIX = "partner-"


def write_blend(namer: Path, partner: Path, weight: float, out: Path) -> Path:
    """The blend of ``namer`` and ``partner`` (``weight``: the partner's share of the names,
    0-1) in the new folder ``out``; returns the blended namer's ONNX there. NamerError when
    either is not a hupai namer, the weight is out of range, or ``out`` holds files already
    (nothing there is overwritten)."""
    if not 0.0 < weight < 1.0:
        raise NamerError(f"blend weight {weight}: must lie between 0 and 1 (the partner's share)")
    manifest = load_namer_manifest(namer)  # each a namer hupai reads, or NamerError naming it
    partners = load_namer_manifest(partner).partners
    for path in (namer, partner):
        if not path.is_file():
            raise NamerError(f"{path}: no such namer ONNX")
    if manifest.blend is not None:
        raise NamerError(f"{namer}: blends {manifest.blend[0]} already; blend its own namer")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise NamerError(f"{out}: not an empty folder; a blend goes into a new one")
    out.mkdir(parents=True, exist_ok=True)
    partner_name = partner.name
    if partner_name == namer.name or partner_name in manifest.partners:
        partner_name = PARTNER_PREFIX + partner_name
    # the bonus reader, a gate: beside each namer, as its manifest names them
    for owner, names in ((namer, manifest.partners), (partner, partners)):
        for name in names:
            for f in (owner.parent / name, (owner.parent / name).with_suffix(".json")):
                if f.is_file() and not (out / f.name).exists():
                    shutil.copyfile(f, out / f.name)
    shutil.copyfile(namer, out / namer.name)
    shutil.copyfile(partner, out / partner_name)
    shutil.copyfile(partner.with_suffix(".json"), (out / partner_name).with_suffix(".json"))
    data = json.loads(namer.with_suffix(".json").read_text(encoding="utf-8"))
    data["blend"] = {"file": partner_name, "weight": weight}
    blended = out / namer.name
    blended.with_suffix(".json").write_text(
        json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    return blended
