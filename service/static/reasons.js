// hupai — the server's reasons in Chinese (issue #39, row 6). The API answers errors in
// English ("<field>: <problem>", hupai.scoring's words); a Chinese page shows each reason it
// can meet in Chinese, translated here by its shape, with the tiles, numbers and names it
// quotes kept as they are. A reason of an unknown shape is never shown in English on a
// Chinese page: the caller says so in Chinese instead. Imports nothing (a leaf module).

/** Field names in a path ("melds[0].tiles") in Chinese, beside the page's own names of the
 * request's fields (i18n.js's, given to pathZh as ``known``, and looked up first). */
const PATH_ZH = {
  hands: "各家手牌",
  tiles: "牌",
  from: "被吃碰的玩家",
  image: "照片",
  city: "城市",
  revision: "版本",
  number: "局",
  last_drawer: "摸最后一张牌的玩家",
  context: "这一局的信息",
  token: "链接",
};

/** A field path in Chinese: "melds[0].tiles" → "副露 1 · 牌"; "" for a name not known. */
export function pathZh(path, known = {}) {
  const parts = String(path || "")
    .split(".")
    .filter(Boolean)
    .map((part) => {
      const m = /^([A-Za-z_]+)((?:\[\d+\])*)$/.exec(part);
      if (!m) return null;
      const name = known[m[1]] || PATH_ZH[m[1]];
      if (!name) return null;
      const numbers = [...m[2].matchAll(/\d+/g)].map((i) => Number(i[0]) + 1);
      return [name, ...numbers].join(" ");
    });
  return parts.length && parts.every(Boolean) ? parts.join(" · ") : "";
}

const CITY_ZH = { nanning: "南宁", nanchang: "南昌", ningbo: "宁波", guiyang: "贵阳", shaanxi: "陕西" };
const city = (name) => CITY_ZH[name] || name;
const unquote = (text) => String(text).replace(/^['"]|['"]$/g, "");

/** [shape of the English problem, its Chinese]: the problems the page can meet, by shape. */
const PROBLEMS_ZH = [
  [/^required\b/, () => "必须填写"],
  [/^'([^']*)' is not in the hand '([^']*)'/, (m) => `${m[1]} 不在手牌 ${m[2]} 里（手牌要包含胡的那张牌）`],
  [/^'([^']*)' is not a chow\b/, (m) => `${m[1]} 不是顺子（同一花色相连的三张）`],
  [/^a chow is claimed from the player before the winner \((\d)\), not (\d)/, (m) => `吃只能吃上家（玩家 ${Number(m[1]) + 1}）的牌，不能是玩家 ${Number(m[2]) + 1}`],
  [/^a chow is claimed from the previous seat/, () => "吃只能吃上家的牌"],
  [/^'([^']*)': '(.)' is not a suit letter/, (m) => `${m[1]} 里的 ${m[2]} 不是花色字母（m 万、p 筒、s 条，z 字牌，f 花牌）`],
  [/^'([^']*)': '(.)' is not a rank/, (m) => `${m[1]} 里的 ${m[2]} 不是点数（用数字 1–9）`],
  [/^'([^']*)': suit letter '(.)' has no ranks before it/, (m) => `${m[1]} 里的 ${m[2]} 前面没有点数`],
  [/^'([^']*)': ranks '([^']*)' have no suit letter after them/, (m) => `${m[1]} 里的 ${m[2]} 后面没有花色字母`],
  [/^'([^']*)': '0' is not a rank/, (m) => `${m[1]} 里的 0 不是点数（点数是 1–9）`],
  [/^'([^']*)': '([^']*)' does not exist/, (m) => `${m[1]} 里的 ${m[2]} 不存在`],
  [/^'([^']*)': too long for tiles/, () => "牌写得太长了"],
  [/^'([^']*)' is (\d+) tiles beside (\d+) melds?; a hand between turns holds 13/, (m) => `${m[1]} 是 ${m[2]} 张牌（另有 ${m[3]} 副副露）；没胡的手牌应有 13 张，每副副露少 3 张`],
  [/^(\d+) concealed tiles beside (\d+) melds; a complete hand has (\d+)/, (m) => `手里 ${m[1]} 张牌、${m[2]} 副副露；胡牌时手里应有 ${m[3]} 张`],
  [/^(\d+) copies of (\w+)\b.*a set has only (\d+)/, (m) => `${m[2]} 有 ${m[1]} 张；一副牌只有 ${m[3]} 张`],
  [/^'([^']*)' is not a known city/, (m) => `${m[1]} 不是这里有的城市`],
  [/^'([^']*)' is not used in (\w+)/, (m) => `${city(m[2])}麻将不用 ${m[1]} 这种牌`],
  [/^(\w+) is played without flowers/, (m) => `${city(m[1])}麻将不用花牌`],
  [/^(\w+) does not allow claiming a chow/, (m) => `${city(m[1])}麻将不能吃牌`],
  [/^(\w+) does not settle a drawn hand/, (m) => `${city(m[1])}麻将流局不算分`],
  [/^(\w+)'s seed says who deals next/, (m) => `${city(m[1])}麻将的规则已定好谁坐庄，不用选`],
  [/^'([^']*)' is a flower; list flowers under 'flowers'/, (m) => `${m[1]} 是花牌，请放到花牌里，不要放在手牌里`],
  [/^'([^']*)': a flower is not part of the hand/, (m) => `${m[1]} 是花牌，请放到花牌里，不要放在手牌里`],
  [/^'([^']*)' is not a flower/, (m) => `${m[1]} 不是花牌（花牌是 1f–8f）`],
  [/^'([^']*)' is not a chicken this hand/, (m) => `${m[1]} 这一局不是鸡`],
  [/^(\d) is the winner; a player cannot feed himself/, () => "放炮者不能是胡牌者自己"],
  [/^player (\d) is the winner; a player cannot feed himself/, () => "放炮者不能是胡牌者自己"],
  [/^(\d) is the kong's own seat/, () => "放杠的不能是开杠的人自己"],
  [/^(-?[\d.]+) is outside (-?\d+)-(-?\d+)/, (m) => `${m[1]} 超出范围（${m[2]}–${m[3]}）`],
  [/^(.+?) is not a whole number/, (m) => `${unquote(m[1])} 不是整数`],
  [/^(.+?) is not a number/, (m) => `${unquote(m[1])} 不是数字`],
  [/^(.+?) is not true or false/, (m) => `${unquote(m[1])} 不是“是”或“否”`],
  [/^(.+?) is not one of: (.*)$/, (m) => `${unquote(m[1])} 不是可选的值（${m[2]}）`],
  [/^(.+?) is not a rate \(0 to (\d+) per point\)/, (m) => `${unquote(m[1])} 不是有效的每分金额（0 到 ${m[2]}）`],
  [/^(.+?) is not a tile such as/, (m) => `${unquote(m[1])} 不是一张牌（例如 5m）`],
  [/^(.+?) is not tiles such as/, (m) => `${unquote(m[1])} 不是牌（例如 123m5z）`],
  [/^(.+?) is not a seat/, (m) => `${unquote(m[1])} 不是座位（0–3）`],
  [/^(-?\d+) is too large/, (m) => `${m[1]} 太大了`],
  [/^two players share a name/, () => "有两位玩家同名（不分大小写）"],
  [/^expected 4 names in chair order/, () => "要按座位顺序填四位玩家的名字"],
  [/^a name of (\d+) characters; at most (\d+)/, (m) => `名字有 ${m[1]} 个字，最多 ${m[2]} 个`],
  [/^(\d+) characters; at most (\d+)/, (m) => `有 ${m[1]} 个字，最多 ${m[2]} 个`],
  [/^the table changed since you loaded it/, () => "这一桌在你打开之后被改过；请重新载入后再改"],
  [/^hand (\d+) changed since you loaded it/, () => "这一局在你打开之后被改过；请重新载入后再改"],
  [/^the table holds (\d+) hands/, (m) => `这一桌已有 ${m[1]} 局，请开新的一桌`],
  [/^nothing left to undo/, () => "没有可以撤销的改动了"],
  [/^the table has no hands to undo/, () => "这一桌还没有可以撤销的局"],
  [/^no hand (\d+) at this table/, () => "这一桌没有这一局"],
  [/^hand (\d+) (?:was|is already) deleted/, () => "这一局已经删除了"],
  [/^hand (\d+) has no photo/, () => "这一局没有照片"],
  [/^no such table/, () => "找不到这一桌（请检查链接）"],
  [/^this is the table's read-only link/, () => "这是只读链接"],
  [/^the photo read for this hand is no longer kept/, () => "服务器已不再保存这张照片的识别结果；没有添加任何局"],
  [/^not an image file hupai can read/, () => "不是可以识别的图片格式"],
  [/^HEIC\/HEIF\/AVIF photos are not supported/, () => "苹果手机“高效”格式的照片不能识别；请在相机设置里选“兼容性最佳”，或分享为普通照片"],
  [/^\S+ images are not supported/, () => "不支持这种图片格式"],
  [/^its header claims more than ([\d.]+) megapixels; at most ([\d.]+)/, (m) => `照片超过 ${m[1]} 百万像素；最多 ${m[2]} 百万像素`],
  [/^cannot read the image: it is truncated or damaged/, () => "照片打不开：文件损坏或不完整"],
  [/^the photo cannot be opened/, () => "照片打不开：文件损坏或不完整"],
  [/^(\d+)×(\d+) px is too small to read tiles/, (m) => `${m[1]}×${m[2]} 像素太小，认不出牌`],
  [/^a (?:progressive )?JPEG of/, () => "这张照片解码太费时；请发相机原图或小一点的照片"],
  [/^reading took longer than ([\d.]+) s/, (m) => `识别超过了 ${m[1]} 秒`],
  [/^larger than the ([\d.]+) (K|M)iB allowed/, (m) => `超过了允许的 ${m[1]} ${m[2] === "M" ? "兆" : "千"}字节`],
  [/^the server is reading (\d+) photos/, (m) => `服务器正在识别 ${m[1]} 张照片，请稍后再试`],
  [/^the tile reader is not loaded/, () => "识别模型还没有载入，请稍后再试"],
  [/^the file is empty/, () => "文件是空的"],
  [/^over (\d+(?:\.\d+)?) ?MiB/, (m) => `超过 ${m[1]} 兆字节`],
  [/^(\d+) ?x ?(\d+) pixels/, (m) => `${m[1]}×${m[2]} 像素`],
  [/^this device made too many tables just now; try again in (\d+) s/, (m) => `这台设备刚建了太多桌，请 ${m[1]} 秒后再试`],
  [/^internal error/, () => "服务器内部出错；请求没有被处理"],
  [/^unknown field/, () => "服务器不认识这一项"],
  [/^expected\b/, () => "格式不对"],
];

/** The problem of an error ``message`` ("<path>: <problem>") in Chinese, with its path's
 * name before it when that is known and ``named``; "" when the problem's shape is not known. */
export function reasonZh(message, field, known = {}, named = true) {
  let problem = String(message || "");
  const where = field && named ? pathZh(field, known) : "";
  if (field && problem.startsWith(`${field}: `)) problem = problem.slice(field.length + 2);
  problem = problem.replace(/ \(and \d+ more\)$/, "");
  for (const [shape, zh] of PROBLEMS_ZH) {
    const m = shape.exec(problem);
    if (m) return where ? `${where}：${zh(m)}` : zh(m);
  }
  return "";
}
