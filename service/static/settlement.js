// hupai — the end of a game on the page: who pays whom in the fewest transfers (settle.js),
// with the money at the table's rate, listed, shared as text or saved as a picture.
import { $, setStatus } from "./dom.js";
import { cityTitle, t } from "./i18n.js";
import { fewestTransfers, money } from "./settle.js";
import { state } from "./state.js";


function transfers(view) {
  const start = view.starting_points || 0;
  return fewestTransfers(view.totals.map((v) => v - start));
}

function settlementLines(view) {
  const lines = transfers(view).map((x) => {
    const cash = money(x.points, view.rate);
    const amount = `${x.points} ${t("points_unit")}${cash ? ` = ${cash}${t("money_unit")}` : ""}`;
    return t("pays", { from: view.players[x.from], to: view.players[x.to], amount });
  });
  return lines.length ? lines : [t("settle_none")];
}

function settlementHeader(view) {
  const city = state.meta.cities.find((c) => c.name === view.city);
  return t("settle_header", { name: view.name || t("game"), city: cityTitle(city), n: view.hands.length });
}

export function renderSettlement(view) {
  const list = $("settle-list");
  list.replaceChildren(
    ...settlementLines(view).map((line) => {
      const li = document.createElement("li");
      li.textContent = line;
      return li;
    }),
  );
}

function settlementText(v) {
  const totals = v.players.map((p, k) => `${p} ${v.totals[k]}`).join(" · ");
  return [settlementHeader(v), totals, ...settlementLines(v)].join("\n");
}

export async function shareSettlement(view) {
  const text = settlementText(view);
  try {
    if (navigator.share) await navigator.share({ text });
    else {
      await navigator.clipboard.writeText(text);
      setStatus(() => t("copied"));
    }
  } catch (e) {
    $("settle-copy").hidden = false;
    $("settle-copy").value = text;
    $("settle-copy").select();
    setStatus(() => t("copy_failed"));
  }
}

/** The settlement as a picture (PNG) to send in a chat. */
export async function saveSettlementImage(view) {
  const lines = settlementText(view).split("\n");
  const canvas = document.createElement("canvas");
  const scale = 2;
  canvas.width = 360 * scale;
  canvas.height = (40 + lines.length * 30) * scale;
  const ctx = canvas.getContext("2d");
  ctx.scale(scale, scale);
  ctx.fillStyle = "#1f5135";
  ctx.fillRect(0, 0, 360, canvas.height / scale);
  ctx.fillStyle = "#fff";
  ctx.font = "bold 18px sans-serif";
  ctx.fillText(lines[0], 16, 30);
  ctx.font = "16px sans-serif";
  lines.slice(1).forEach((line, i) => ctx.fillText(line, 16, 62 + i * 30));
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/png"));
  const file = new File([blob], "settlement.png", { type: "image/png" });
  if (navigator.canShare && navigator.canShare({ files: [file] })) {
    try {
      await navigator.share({ files: [file] });
      return;
    } catch (e) {
      // fall through to the download
    }
  }
  const a = $("settle-download");
  if (a.href) URL.revokeObjectURL(a.href);
  a.href = URL.createObjectURL(blob);
  a.download = "settlement.png";
  a.click(); // one button: the link stays hidden, only used to save the picture
}
