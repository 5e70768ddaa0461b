// hupai — a photo made small before it is sent: about 1600 px on its long side, JPEG, turned
// upright by its EXIF orientation, at most 150 KB (the reader shrinks it anyway; a 12-MP
// photo of ~3 MB takes 30 s over a crowded restaurant's 750 kbit/s Wi-Fi, this under 2 s).

export const LONG_SIDE = 1600;
/** JPEG qualities tried in turn until the photo fits BUDGET bytes: about 2 s of upload at
 * 750 kbit/s (a crowded restaurant's Wi-Fi), leaving time to read and score. */
const QUALITIES = [0.8, 0.7, 0.6, 0.5];
export const BUDGET = 150 * 1024;

/** Kinds every phone's browser opens: one of these that it cannot open is damaged (cut
 * short in a chat app, say), and is refused here at once rather than after its upload. */
const OPENED_HERE = new Set(["image/jpeg", "image/png", "image/webp", "image/gif"]);

/** ``file`` as a JPEG Blob at most LONG_SIDE px long, upright; the file itself when it is
 * already small, or when this browser cannot decode a kind it does not know (HEIC …: the
 * server then reads it or says why). Throws the API's ``damaged_photo`` error for a JPEG,
 * PNG or WebP this browser cannot open. */
export async function shrinkPhoto(file) {
  let bitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
  } catch (e) {
    if (OPENED_HERE.has(file.type)) throw { code: "damaged_photo", message: "the photo cannot be opened (damaged or cut short)" };
    return file;
  }
  const { width, height } = bitmap;
  const scale = Math.min(1, LONG_SIDE / Math.max(width, height));
  if (scale === 1 && file.type === "image/jpeg" && file.size < 600 * 1024) {
    bitmap.close();
    return file;
  }
  const w = Math.round(width * scale);
  const h = Math.round(height * scale);
  const canvas = document.createElement("canvas");
  canvas.width = w;
  canvas.height = h;
  const ctx = canvas.getContext("2d");
  ctx.imageSmoothingQuality = "high";
  ctx.drawImage(bitmap, 0, 0, w, h);
  bitmap.close();
  let blob = null;
  for (const q of QUALITIES) {
    blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", q));
    if (!blob || blob.size <= BUDGET) break;
  }
  return blob || file;
}

/** POST a form with upload progress (fetch cannot report it): resolves to the JSON body, or
 * rejects with the API's error body. ``onProgress(fraction)`` while the photo goes up. */
export function postWithProgress(url, form, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    xhr.responseType = "json";
    xhr.upload.addEventListener("progress", (e) => {
      if (e.lengthComputable && onProgress) onProgress(e.loaded / e.total);
    });
    xhr.addEventListener("load", () => {
      const body = xhr.response;
      if (xhr.status >= 200 && xhr.status < 300) resolve(body);
      else reject(body && body.message ? body : { message: `HTTP ${xhr.status}`, local: `HTTP ${xhr.status}` });
    });
    xhr.addEventListener("error", () => reject({ code: "unreachable" }));
    xhr.addEventListener("timeout", () => reject({ code: "unreachable" }));
    xhr.send(form);
  });
}
