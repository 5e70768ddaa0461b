// hupai — the QR code the other players scan to watch a table: encoded by the vendored uqr
// library (vendor/uqr, MIT), its modules drawn on a canvas.
import { encode } from "./vendor/uqr/uqr.js";

/** A canvas showing ``text`` as a QR code (medium error correction, a quiet zone of 4). */
export function qrCanvas(text, label, px = 6) {
  const qr = encode(text, { ecc: "M", border: 4 });
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = qr.size * px;
  canvas.setAttribute("role", "img");
  canvas.setAttribute("aria-label", label);
  canvas.dataset.text = text;
  const ctx = canvas.getContext("2d");
  ctx.fillStyle = "#fff";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.fillStyle = "#000";
  qr.data.forEach((row, y) =>
    row.forEach((dark, x) => {
      if (dark) ctx.fillRect(x * px, y * px, px, px);
    }),
  );
  return canvas;
}
