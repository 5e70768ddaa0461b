// hupai — the page's two languages, 简体中文 and English. The API speaks English with stable
// codes; the page translates by code (errors, reading warnings, verdicts, patterns, items).
// Chosen from the browser's language, switchable, remembered on this phone. An ES module:
// the other modules import what they need; a change of language is told through onLanguage.
import { pathZh, reasonZh } from "./reasons.js";

const LANG_KEY = "hupai.lang";

const TEXT = {
  en: {
    title: "hupai — score a winning hand",
    tagline: "Snap the winning hand, pick the city, get the score.",
    switch_lang: "中文",
    game_start: "Keep score for the whole game",
    game: "Game",
    record_draw: "Record a draw",
    undo_last: "Undo last change",
    share: "Share",
    leave_table: "Leave this table",
    drew_last: "Drew the last tile",
    kong_declared: "A kong was declared",
    add_draw: "Add the draw",
    draw_hands: "Settle the draw (optional): each player's concealed tiles",
    draw_hands_partial: "Give all four players' tiles to settle the draw, or none.",
    read_link: "Read-only link for the other players",
    write_link: "Scoring link (another phone that adds hands)",
    download_csv: "Download CSV",
    download_json: "JSON",
    hands: "Hands",
    table: "Table",
    city: "City",
    win: "Win",
    winner: "Winner",
    discarded_by: "Discarded by",
    round_wind: "Round wind",
    last_tile: "Last tile of the wall",
    first_turn: "First turn",
    house_rules: "House rules (options)",
    take_photo: "📷 Take or choose a photo",
    manual: "No photo? Enter the tiles by hand",
    shoot_tip:
      "Hand in one row, winning tile a little apart at the right end, melds apart with the called tile sideways, the indicator or fishing tiles above the hand.",
    what_was_read: "What was read",
    use_it: "Use it",
    tiles: "Tiles",
    tap_to_fix: "tap one to fix it",
    hand: "Hand",
    melds: "Melds",
    add_meld: "+ meld",
    flowers: "Flowers",
    indicator: "Indicator",
    fishing: "Fishing tiles",
    score: "Score",
    settlement: "Settlement",
    add_to_table: "Add this hand to the table",
    save_changes: "Save the changes",
    delete_hand: "Delete this hand",
    cancel: "Cancel",
    pick_tile: "Pick a tile",
    likely: "Likely:",
    winning_tile: "Winning tile",
    remove: "Remove",
    done: "Done",
    new_table: "A new table",
    new_table_tip: "The city is the one chosen above: {city}.",
    house_rules_table: "House rules for this table",
    rules_edit: "City and rules",
    rules_title: "City and house rules for this table",
    city_change_warning: "{n} hands recorded: saving scores every one of them again under {city}'s rules (each hand as it was entered). Hands {city} cannot score are marked, to fix or delete. Switching back to {old} restores every score.",
    city_changed: "The table now plays {city}'s rules; every hand re-scored.",
    hand_problem: "not scored under these rules: {why}",
    changes_problem: "not scored under {city}'s rules ({why}) — fix or delete it",
    rules_tip: "Saving re-scores every hand with the new rules.",
    rules_changed: "House rules changed; every hand re-scored.",
    rules_none: "no house rules",
    game_name: "Name of the game",
    player_1: "Player 1 (East at the start)",
    player_2: "Player 2 (plays after 1)",
    player_3: "Player 3",
    player_4: "Player 4",
    deals_first: "Deals first",
    starting_points: "Starting points",
    rate: "Money per point",
    rate_none: "none",
    after_other_wins: "After another player wins",
    seed_default: "the seed's default",
    next_deals: "the next player deals",
    winner_deals: "the winner deals",
    start: "Start",
    footer: "rules from the city seeds; tile pictures: samoheen/mahjong-tiles (CC0); photos credited in the README",
    api_docs: "API",
    // dynamic
    dealer: "dealer",
    deals: "deals",
    winner_tag: "winner",
    from: "from",
    reading_tiles: "Reading the tiles…",
    read_n: "Read {n} tiles in {s} s.",
    doubts_title: "Check before you trust this score:",
    read_n_short: "Read {n} tiles.",
    scoring: "Scoring…",
    add_tiles: "Add the tiles of the hand (tap +).",
    unreachable: "The server cannot be reached; check the connection and try again.",
    server_answered: "The server answered {status}.",
    suggestion: "Not a winning hand as read. Reading {changes} would make it one.",
    settled: "Unsure tiles confirmed by the hand's shape: {tiles} — read any other way, they make no winning hand.",
    next: "Next: hand {n} · {wind} round · {dealer} deals",
    hand_n: "Hand {n}",
    changed_hands: "Re-scored — these hands changed:",
    streak: ", streak {n}",
    round_deal: "{wind} round · {dealer} deals",
    round_deal_short: "{wind} · {dealer} deals",
    fix: "Fix",
    draw: "Draw",
    won: "{who} won ({how})",
    won_from: "{who} won ({how} from {from})",
    table_started: "Table started: {players}.",
    adding: "Adding the hand…",
    hand_added: "Hand added: {what}.",
    draw_added: "Draw added.",
    hand_changed: "Hand changed; the totals are recomputed.",
    hand_deleted: "Hand deleted (Undo last change brings it back).",
    undone: "Undone.",
    fixing: "Fixing hand {n}; the hands after it are recomputed.",
    player_n: "Player {n}",
    tile_n: "{row} tile {n}",
    pick: "pick {tile}",
    add_a: "add a {row} tile",
    meld_n: "meld {n}",
    error_field: "({field})",
    // the scoreboard, recording a hand, history, settlement, live view
    record_win: "Record a win",
    record_draw_short: "Draw",
    undo: "Undo",
    redo: "Redo",
    redo_what: "Redo: {what}",
    nothing_to_undo: "Nothing of yours to undo.",
    nothing_to_redo: "Nothing to redo.",
    undo_changed_elsewhere: "Hand {n} was changed on another phone since; undo it there or fix it by hand.",
    undone_what: "Undone: {what}.",
    redone_what: "Redone: {what}.",
    act_add: "hand {n} added",
    act_edit: "hand {n} changed",
    act_delete: "hand {n} deleted",
    act_draw: "draw {n} added",
    who_won: "Who won?",
    who_discarded: "Who discarded?",
    more_facts: "More about this hand",
    retry: "Retry",
    copy: "Copy",
    read_only_tag: "read-only",
    write_link_private: "Scoring link (private: whoever has it can change the scores)",
    confirm_drop_photo: "Throw away this hand and its photo?",
    drop: "Throw away",
    capped_amount: "{paid} ({total}, capped at {paid})",
    choose_winner: "Choose who won first.",
    how_won: "How",
    photo_or_type: "Then take a photo of the hand, or type it.",
    notation: "Type the hand",
    notation_help: "Suits m (characters) p (dots) s (bamboo) z (honors 1-7 = E S W N white green red), f flowers; the last tile is the winning tile; melds in brackets: (777p) pung, (1111m) kong, [1111m] concealed kong, (123s) chow.",
    notation_placeholder: "123m456p789s11122z",
    n_tiles: "{n} tiles",
    history: "History",
    trend: "Totals after each hand",
    trend_desc: "Line chart of the four players' totals after each hand.",
    start_label: "start",
    settle: "Settle up",
    settle_title: "Settlement",
    settle_none: "Everyone is even: nobody pays.",
    pays: "{from} pays {to} {amount}",
    points_unit: "points",
    money_unit: "",
    share_text: "Share as text",
    share_image: "Save as image",
    copied: "Copied.",
    copy_failed: "Could not copy; select the text and copy it.",
    settle_header: "{name} — {city}, {n} hands",
    scan_to_watch: "Scan to watch this table live",
    live: "Live",
    live_on: "Live: updates by itself.",
    live_off: "Connection lost; retrying…",
    confirm_leave: "Leave this table? The table stays on the server, but this phone forgets its scoring link; copy it first if you want to come back.",
    confirm_delete: "Delete hand {n}? Later hands are recomputed (Undo brings it back).",
    confirm_yes: "Yes",
    confirm_no: "No",
    leave: "Leave",
    delete: "Delete",
    uploading: "Sending the photo ({kb} KB)… {pct}%",
    shrinking: "Preparing the photo…",
    tap_photo: "Tap a tile on the photo to fix it.",
    annotated_alt: "The photo with the tiles that were read; tap a tile to fix it",
    too_many_tiles: "A hand holds at most {n} tiles here.",
    fifth_copy: "There are only four {tile}.",
    new_hand: "New hand",
    close: "Close",
    scoreboard: "Scoreboard",
    seat_wind: "{wind}",
    player_seat: "{name} ({wind})",
    hands_none: "No hand yet.",
    table_link: "Link",
    open_write: "Scoring link",
    error_detail: "The server's words",
    reason_untranslated: "The server gave no reason this page knows.",
    nt_suit_without_rank: "'{suit}' needs the ranks before it, e.g. 123{suit}.",
    nt_no_such_tile: "There is no tile {tile}.",
    nt_bad_char: "'{ch}' is not tile notation: digits, then m, p, s, z or f.",
    nt_rank_without_suit: "'{ranks}' at the end needs a suit letter (m, p, s, z or f).",
    nt_unclosed: "A meld opened with '{open}' is not closed.",
    nt_bad_meld: "'{meld}' is not a meld: 3 or 4 of one tile, or a run of 3 in one suit.",
    too_few_tiles: "{got} of {n} tiles: add the rest (the winning tile last).",
    n_of: "{n} / {max}",
    meld_kind: "kind of meld",
    fix_hand: "Fix hand {n}",
    points_short: "pts",
  },
  zh: {
    title: "胡牌 — 拍照算分",
    tagline: "拍下胡牌的手牌，选城市，马上算分。",
    switch_lang: "English",
    game_start: "记录整局比赛的分数",
    game: "牌局",
    record_draw: "记录流局",
    undo_last: "撤销上一步",
    share: "分享",
    leave_table: "离开这桌",
    drew_last: "摸最后一张牌的人",
    kong_declared: "本局有人开杠",
    add_draw: "记下流局",
    draw_hands: "流局结算（可选）：每位玩家的手牌",
    draw_hands_partial: "要结算流局，请填写四位玩家的牌；不结算就都不填。",
    read_link: "给其他玩家的只读链接",
    write_link: "记分链接（另一部手机也能加牌局）",
    download_csv: "下载表格（CSV）",
    download_json: "数据（JSON）",
    hands: "牌局记录",
    table: "本局",
    city: "城市",
    win: "胡法",
    winner: "胡牌者",
    discarded_by: "放炮者",
    round_wind: "圈风",
    last_tile: "最后一张牌（海底）",
    first_turn: "第一巡",
    house_rules: "规则选项",
    take_photo: "📷 拍照或选择照片",
    manual: "没有照片？手动输入牌",
    shoot_tip: "手牌排成一行，胡的那张牌放在最右边稍微分开；副露分开摆，吃碰的那张横放；翻开的精牌、搭牌或钓鱼牌放在手牌上方。",
    what_was_read: "识别结果",
    use_it: "采用",
    tiles: "牌",
    tap_to_fix: "点一张牌可以修改",
    hand: "手牌",
    melds: "副露",
    add_meld: "+ 副露",
    flowers: "花牌",
    indicator: "翻牌（指示牌）",
    fishing: "钓鱼牌",
    score: "得分",
    settlement: "结算",
    add_to_table: "把这一局记入牌局",
    save_changes: "保存修改",
    delete_hand: "删除这一局",
    cancel: "取消",
    pick_tile: "选一张牌",
    likely: "可能是：",
    winning_tile: "胡的牌",
    remove: "删除",
    done: "完成",
    new_table: "开一桌",
    new_table_tip: "城市取自上面的选择：{city}。",
    house_rules_table: "这一桌的规则选项",
    rules_edit: "城市和规则",
    rules_title: "这一桌的城市和规则",
    city_change_warning: "已记 {n} 局：保存后，每一局都按{city}的规则重新计分（按当时记下的牌）。{city}算不了分的局会标出来，需要修改或删除。改回{old}就能恢复原来的分数。",
    city_changed: "这一桌已改用{city}的规则，每一局都已重新计分。",
    hand_problem: "按现在的规则算不了分：{why}",
    changes_problem: "按{city}的规则算不了分（{why}），请修改或删除",
    rules_tip: "保存后，每一局都按新规则重新计算。",
    rules_changed: "规则已修改，每一局都已重新计算。",
    rules_none: "没有特别规则",
    game_name: "牌局名称",
    player_1: "玩家 1（开局坐东）",
    player_2: "玩家 2（在 1 的下家）",
    player_3: "玩家 3",
    player_4: "玩家 4",
    deals_first: "首局庄家",
    starting_points: "起始分",
    rate: "每分金额",
    rate_none: "不计",
    after_other_wins: "闲家胡牌后",
    seed_default: "按规则默认",
    next_deals: "下家坐庄",
    winner_deals: "胡牌者坐庄",
    start: "开始",
    footer: "规则依据各城市规则文本；牌面图（公有领域）与照片的来源见项目说明。",
    api_docs: "接口文档",
    dealer: "庄",
    deals: "坐庄",
    winner_tag: "胡牌",
    from: "来自",
    reading_tiles: "正在识别牌…",
    read_n: "识别了 {n} 张牌，用时 {s} 秒。",
    doubts_title: "这个分数先核对再用：",
    read_n_short: "识别了 {n} 张牌。",
    scoring: "正在算分…",
    add_tiles: "请添加手牌（点 +）。",
    unreachable: "连不上服务器，请检查网络后重试。",
    server_answered: "服务器返回 {status}。",
    suggestion: "按识别结果不是胡牌。若把 {changes}，就是胡牌。",
    settled: "没把握的牌由牌型确认：{tiles}（认成别的牌都不成胡）。",
    next: "下一局：第 {n} 局 · {wind}风圈 · {dealer} 坐庄",
    hand_n: "第 {n} 局",
    changed_hands: "重新计算后，这些局的分变了：",
    streak: "，连庄 {n}",
    round_deal: "{wind}风圈 · {dealer} 坐庄",
    round_deal_short: "{wind}圈 · {dealer}庄",
    fix: "修改",
    draw: "流局",
    won: "{who} 胡牌（{how}）",
    won_from: "{who} 胡牌（{how}，{from} 放炮）",
    table_started: "已开桌：{players}。",
    adding: "正在记入…",
    hand_added: "已记入：{what}。",
    draw_added: "已记下流局。",
    hand_changed: "已修改，总分已重新计算。",
    hand_deleted: "已删除（“撤销上一步”可以恢复）。",
    undone: "已撤销。",
    fixing: "正在修改第 {n} 局；之后的各局会重新计算。",
    player_n: "玩家 {n}",
    tile_n: "{row}第 {n} 张",
    pick: "选 {tile}",
    add_a: "添加{row}",
    meld_n: "副露 {n}",
    error_field: "（{field}）",
    record_win: "记一局胡牌",
    record_draw_short: "流局",
    undo: "撤销",
    redo: "重做",
    redo_what: "重做：{what}",
    nothing_to_undo: "没有可撤销的操作。",
    nothing_to_redo: "没有可重做的操作。",
    undo_changed_elsewhere: "第 {n} 局之后被另一部手机改过；请在那部手机上撤销，或直接修改。",
    undone_what: "已撤销：{what}。",
    redone_what: "已重做：{what}。",
    act_add: "记入第 {n} 局",
    act_edit: "修改第 {n} 局",
    act_delete: "删除第 {n} 局",
    act_draw: "记入第 {n} 局流局",
    who_won: "谁胡了？",
    who_discarded: "谁放炮？",
    more_facts: "这一局的其他情况",
    retry: "重试",
    copy: "复制",
    read_only_tag: "只读",
    write_link_private: "记分链接（私密：拿到的人都能改分）",
    confirm_drop_photo: "不要这一局和它的照片了吗？",
    drop: "不要了",
    capped_amount: "{paid}（{total}，封顶 {paid}）",
    choose_winner: "请先选胡牌者。",
    how_won: "胡法",
    photo_or_type: "然后拍下手牌，或者直接输入。",
    notation: "输入手牌",
    notation_help: "m 万、p 筒、s 条、z 字（1–7 = 东南西北白发中）、f 花；最后一张是胡的牌；副露写在括号里：(777p) 碰、(1111m) 明杠、[1111m] 暗杠、(123s) 吃。",
    notation_placeholder: "123m456p789s11122z",
    n_tiles: "{n} 张",
    history: "牌局记录",
    trend: "每局后的总分",
    trend_desc: "四位玩家每局之后总分的折线图。",
    start_label: "开局",
    settle: "结账",
    settle_title: "结账",
    settle_none: "大家持平，谁都不用付。",
    pays: "{from} 付给 {to} {amount}",
    points_unit: "分",
    money_unit: "元",
    share_text: "分享文字",
    share_image: "保存图片",
    copied: "已复制。",
    copy_failed: "无法复制；请选中文字后复制。",
    settle_header: "{name} — {city}，共 {n} 局",
    scan_to_watch: "扫码实时看这桌的比分",
    live: "实时",
    live_on: "实时：会自动更新。",
    live_off: "连接中断，正在重试…",
    confirm_leave: "离开这桌？牌局仍保存在服务器上，但这部手机会忘记记分链接；想回来的话请先复制链接。",
    confirm_delete: "删除第 {n} 局？之后的各局会重新计算（“撤销”可以恢复）。",
    confirm_yes: "确定",
    confirm_no: "取消",
    leave: "离开",
    delete: "删除",
    uploading: "正在上传照片（{kb} KB）… {pct}%",
    shrinking: "正在准备照片…",
    tap_photo: "点照片上的牌就能修改它。",
    annotated_alt: "标出了识别结果的照片；点一张牌可以修改",
    too_many_tiles: "这里最多 {n} 张牌。",
    fifth_copy: "{tile} 只有四张。",
    new_hand: "新的一局",
    close: "关闭",
    scoreboard: "比分",
    seat_wind: "{wind}",
    player_seat: "{name}（{wind}）",
    hands_none: "还没有记录。",
    table_link: "链接",
    open_write: "记分链接",
    error_detail: "详细原因",
    reason_untranslated: "这条原因还没有中文说明；切换语言可以看到服务器的原话。",
    nt_suit_without_rank: "“{suit}”前面要有数字，比如 123{suit}。",
    nt_no_such_tile: "没有 {tile} 这张牌。",
    nt_bad_char: "“{ch}”不是牌的写法：先写数字，再写 m、p、s、z 或 f。",
    nt_rank_without_suit: "最后的“{ranks}”后面要写花色字母（m、p、s、z 或 f）。",
    nt_unclosed: "用“{open}”开头的副露没有闭合。",
    nt_bad_meld: "“{meld}”不是副露：应是同一张牌 3 或 4 张，或同花色的三张顺子。",
    too_few_tiles: "现在 {got} 张，要 {n} 张：把其余的牌补上（胡的那张放最后）。",
    n_of: "{n} / {max}",
    meld_kind: "副露种类",
    fix_hand: "修改第 {n} 局",
    points_short: "分",
  },
};

const WIN_TEXT = {
  en: { self_draw: "self-draw", discard: "on a discard", robbed_kong: "robbing a kong", kong_replacement: "kong replacement" },
  zh: { self_draw: "自摸", discard: "点炮", robbed_kong: "抢杠", kong_replacement: "杠上开花" },
};
const WIND_TEXT = { en: ["East", "South", "West", "North"], zh: ["东", "南", "西", "北"] };
const MELD_TEXT = {
  en: { chow: "chow", pung: "pung", kong: "kong", concealed_kong: "concealed kong", added_kong: "added kong" },
  zh: { chow: "吃", pung: "碰", kong: "明杠", concealed_kong: "暗杠", added_kong: "补杠" },
};
const UNIT_TEXT = { en: { points: "points", tai: "tai", x: "×" }, zh: { points: "分", tai: "台", x: "倍" } };
const GROUP_TEXT = { en: { hand: "hand", instant: "instant" }, zh: { hand: "胡牌", instant: "即时" } };

// Errors by the API's stable code (the page never shows the English message alone in Chinese).
const ERROR_TEXT = {
  en: {
    no_tiles: "No tiles were found in the photo.",
    unscorable_reading: "The tiles as read cannot be scored.",
    invalid_request: "Something in the hand needs fixing.",
    too_large: "The photo is too large.",
    too_many_pixels: "The photo has too many pixels.",
    empty_photo: "The photo file is empty.",
    damaged_photo: "The photo could not be opened (damaged or cut short).",
    photo_too_small: "The photo is too small to read.",
    unsupported_media_type: "That file is not a photo hupai can read.",
    busy: "The server is busy reading other photos; try again in a moment.",
    read_timeout: "Reading this photo took too long; send a smaller photo, or one cropped to the hand.",
    not_ready: "The server is still starting; try again shortly.",
    not_found: "Not found (check the link).",
    read_only: "This is the table's read-only link; changes need the scoring link.",
    stale: "Someone changed this hand meanwhile; it was reloaded — make your change again.",
    internal_error: "Something went wrong on the server; nothing was changed.",
    unreachable: "The server cannot be reached; check the connection and try again.",
    payload_too_large: "The photo is too large.",
    photo_gone: "The photo read for this hand is no longer kept on the server.",
    too_many_tables: "This phone started too many tables just now.",
    too_costly: "This photo would take too long to open.",
  },
  zh: {
    no_tiles: "照片里没有找到牌。",
    unscorable_reading: "按识别出的牌无法算分。",
    invalid_request: "牌或设置有误，需要修改。",
    too_large: "照片太大了。",
    too_many_pixels: "照片像素太多了。",
    empty_photo: "照片文件是空的。",
    damaged_photo: "照片打不开（文件损坏或不完整）。",
    photo_too_small: "照片太小，无法识别。",
    unsupported_media_type: "这个文件不是可以识别的照片。",
    busy: "服务器正忙于识别其他照片，请稍后再试。",
    read_timeout: "这张照片识别太久了；请发一张小一点、或只裁出手牌的照片。",
    not_ready: "服务器还在启动，请稍后再试。",
    not_found: "找不到（请检查链接）。",
    read_only: "这是只读链接；修改需要记分链接。",
    stale: "这一局刚被别人改过，已重新载入——请再改一次。",
    internal_error: "服务器出错了；什么都没有改动。",
    unreachable: "连不上服务器，请检查网络后重试。",
    payload_too_large: "照片太大了。",
    photo_gone: "服务器已不再保存这张照片的识别结果。",
    too_many_tables: "这台手机刚建了太多桌。",
    too_costly: "这张照片打开太费时。",
  },
};
// Advice for the reading's warnings, written for the page (no command-line options).
const ADVICE_TEXT = {
  en: {
    no_tiles: "Photograph the hand from closer, in good light, tiles face up.",
    too_many_copies: "A tile was probably misread: check the marked tiles and tap one to fix it.",
    tile_count: "Make sure every tile is in the picture and the melds are apart; reshoot closer if the tiles are small.",
    low_confidence: "Check the marked tiles; reshoot closer, in even light, without glare.",
    cut_by_border: "Step back or reframe so that every tile is whole in the picture.",
    tiles_small: "Reshoot closer: the tiles fill too little of the photo.",
    win_tile_assumed: "Set the winning tile a little apart at the right end of the hand, or tap it and choose “Winning tile”.",
    win_tile_not_in_hand: "The winning tile is not among the hand's tiles; tap the right tile and choose “Winning tile”.",
    unreadable_meld: "Lay each meld apart from the others with its called tile sideways, or fix the meld below.",
    concealed_kong_unknown: "Turn two tiles of the concealed kong face up (the inner two), or set its tile below.",
    unplaced_tiles: "Keep only the winning hand, its melds, flowers and the indicator or fishing tiles in the picture.",
    gap: "A tile may be missing at the dashed box (a row leaves room for one, or a tile there was seen but not read): add it with +, or lay the tiles touching and reshoot.",
    tile_in_room: "A marked tile was read where a row leaves room for one, though the finder was unsure of it (a blank white dragon, a tile low in contrast): check it, and tap it to fix it.",
    kong_or_apart: "A tile set apart lies beside a pung of the same tile: if it belongs to the meld (a kong), lay the four together and reshoot, or fix the meld below; if it is an indicator or fishing tile, set it further apart.",
  },
  zh: {
    no_tiles: "请离近一些、在光线好的地方拍，牌面朝上。",
    too_many_copies: "可能有牌认错了：检查标出的牌，点一下就能改。",
    tile_count: "确认所有牌都在照片里、副露分开摆；牌太小就离近重拍。",
    low_confidence: "检查标出的牌；离近一些、光线均匀、避免反光重拍。",
    cut_by_border: "退后一点或调整取景，让每张牌都完整地在照片里。",
    tiles_small: "离近重拍：牌在照片里太小了。",
    win_tile_assumed: "把胡的那张牌放在手牌最右边稍微分开；或者点那张牌选“胡的牌”。",
    win_tile_not_in_hand: "胡的牌不在手牌里；点正确的那张牌选“胡的牌”。",
    unreadable_meld: "每组副露分开摆、吃碰的那张横放；或者在下面修改副露。",
    concealed_kong_unknown: "暗杠翻开中间两张；或者在下面设置暗杠的牌。",
    unplaced_tiles: "照片里只留胡牌的手牌、副露、花牌和翻牌或钓鱼牌。",
    gap: "虚线框处可能漏认了一张牌（一排牌中间空出一张的位置，或看到了却没认出的牌）：用 + 补上，或者把牌挨着摆好重拍。",
    tile_in_room: "标出的牌是在一排牌空出的位置上认出的，但找牌时没把握（比如空白的白板、颜色很淡的牌）：请检查，点一下就能改。",
    kong_or_apart: "一张单独放出的牌挨着同样的一组碰：如果它是这组的第四张（杠），把四张摆在一起重拍，或者在下面修改副露；如果是翻牌或钓鱼牌，请放得更开一些。",
  },
};
// Why a score read from a photo is not confident (the answer's `doubts`, by code).
const DOUBT_TEXT = {
  en: {
    tiles_unsure: "Some tiles may be misread: check the marked tiles.",
    unscorable: "The tiles as read do not make a hand that can be scored.",
    not_a_winning_hand: "The tiles as read are not a winning hand: a tile may be misread or missing.",
    win_tile_matters: "No tile was set apart as the winning tile, and which one won changes the score: tap it and choose “Winning tile”.",
  },
  zh: {
    tiles_unsure: "有的牌可能认错了：检查标出的牌。",
    unscorable: "按识别出的牌，这手牌没法算分。",
    not_a_winning_hand: "按识别出的牌不是胡牌：可能有牌认错或漏了。",
    win_tile_matters: "没有单独放出胡的牌，而胡哪一张分数不同：点那张牌选“胡的牌”。",
  },
};
const WARNING_TEXT = {
  zh: {
    no_tiles: "没有找到牌",
    too_many_copies: "某种牌超过 4 张",
    tile_count: "手牌张数不对",
    low_confidence: "有的牌没把握",
    cut_by_border: "有的牌被照片边缘切掉了",
    tiles_small: "牌太小",
    win_tile_assumed: "没有单独放出胡的牌，取了最后一张",
    win_tile_not_in_hand: "胡的牌不在手牌里",
    unreadable_meld: "有副露认不出",
    concealed_kong_unknown: "暗杠的牌看不到",
    unplaced_tiles: "有的牌不在手牌、副露或翻牌的位置上",
    gap: "虚线框处可能漏认了一张牌",
    tile_in_room: "有的牌是在空位上补认出的，请检查",
    kong_or_apart: "单独的牌挨着同样的碰，可能是杠",
  },
};
const REASON_TEXT = {
  en: {
    ok: "A winning hand.",
    not_a_winning_hand: "Not a winning hand.",
    below_minimum: "Below the minimum to win.",
    needs_kong_to_win_on_discard: "Winning on a discard needs a kong or more than the plain win.",
    sealed_player_cannot_win: "The sealed player cannot win this hand.",
    baida_cannot_be_claimed: "A baida tile cannot be claimed.",
  },
  zh: {
    ok: "胡牌！",
    not_a_winning_hand: "不是胡牌。",
    below_minimum: "没有达到起胡分。",
    needs_kong_to_win_on_discard: "点炮胡需要有杠（豆）或超过平胡。",
    sealed_player_cannot_win: "被封胡的玩家不能胡这一局。",
    baida_cannot_be_claimed: "百搭不能吃碰。",
  },
};
const PATTERN_ZH = { base: "底分", hand_points: "手牌分值", lucky_catch: "钓鱼" };
const ITEM_ZH = {
  hand: "胡牌",
  win: "胡牌",
  self_draw: "自摸",
  exposed_kong: "明杠",
  concealed_kong: "暗杠",
  added_kong: "补杠",
  kong: "杠",
  chicken: "鸡",
  rushing_chicken: "冲锋鸡",
  responsibility_chicken: "责任鸡",
  yellow_tile: "黄牌（流局）",
  spirits: "精",
  virtuous_bonus: "德国奖励",
  paozi: "炮子",
};
// The city's own request fields, by name.
const FIELD_ZH = {
  black_chicken: "乌骨鸡（八筒也算鸡）",
  discarder_pays_all: "点炮包三家",
  indomitable: "霸王精",
  plain_needs_self_draw: "平胡需自摸",
  combine: "计分方式",
  min_points: "起胡分",
  allow_chow_claim: "允许吃牌",
  dragon_cycle: "箭牌顺序",
  virtuous_mode: "德国规则",
  payment_model: "付分方式",
  baida_mode: "百搭规则",
  min_tai: "最少台数",
  exposed_bean_payer: "明杠豆谁付",
  added_bean_payer: "补杠豆谁付",
  chickens_require_ready: "听牌才算鸡分",
  wild_chicken: "野鸡",
  base_points: "底分",
  base_score: "底分",
  cap: "封顶（0 = 不封顶）",
  dealer_double: "庄家翻倍",
  spirit_groups: "精可单独成组",
  pure_suit_double: "清一色翻倍",
  fishing: "钓鱼牌",
  indicator: "翻牌",
  sealed: "封胡",
  seat: "座位",
  by: "封胡者",
  hand_points: "手牌分值",
  spirits: "精",
  primary: "正精",
  secondary: "副精",
  kongs: "杠",
  contract: "三摊承包",
  dealer_streak: "连庄",
  chickens: "手里的鸡",
  responsibility: "责任鸡",
  rushing_chicken: "冲锋鸡",
  ready: "听牌的玩家",
  paozi: "炮子",
  kind: "种类",
  tile: "牌",
  fed_by: "供牌者",
  discarder: "放炮者",
  "kongs.discarder": "放杠者",
  hand: "手牌",
  win_tile: "胡的牌",
  melds: "副露",
  flowers: "花牌",
  winner: "胡牌者",
  win: "胡法",
  round_wind: "圈风",
  last_tile: "海底",
  first_turn: "第一巡",
  options: "规则选项",
  players: "玩家",
  rate: "每分金额",
  starting_points: "起始分",
  first_dealer: "首局庄家",
  name: "牌局名称",
  photo: "照片",
};

const SUIT_ZH = { m: "万", p: "筒", s: "条" };
const RANK_ZH = ["一", "二", "三", "四", "五", "六", "七", "八", "九"];
const HONOR_ZH = ["东风", "南风", "西风", "北风", "白板", "发财", "红中"];
const FLOWER_ZH = ["梅", "兰", "菊", "竹", "春", "夏", "秋", "冬"];
const SUIT_EN = { m: "characters", p: "dots", s: "bamboo" };
const HONOR_EN = ["East", "South", "West", "North", "White dragon", "Green dragon", "Red dragon"];
const FLOWER_EN = ["plum", "orchid", "chrysanthemum", "bamboo", "spring", "summer", "autumn", "winter"];


// Field help from GET /v1/cities is English: in Chinese, this help (by field name) or none.
const FIELD_DOC_ZH = {
  combine: "取最高一项：只算最高的一项；各项相加：符合的各项加起来",
  min_points: "胡牌者（封胡、钓鱼之前）至少要收的分（0 = 不限）",
  allow_chow_claim: "允许吃牌副露（规则原文只说碰和杠）",
  dragon_cycle: "翻出箭牌时下一张是哪张：原文的发→中→白，或中→发→白",
  virtuous_mode: "德国怎么算：没把精当百搭用时算、手里没有精时才算、或不算",
  payment_model: "点炮胡谁付：只由放炮者付，或三家都付（放炮者加倍）",
  baida_mode: "哪些牌是百搭：翻牌的另 3 张和下一张的 4 张、只算翻牌的 3 张、或只算下一张的 4 张",
  min_tai: "胡牌至少要的台数（翻倍前；0 = 不限）",
  exposed_bean_payer: "明杠的 1 分谁付：三家都付，或只由放杠者付",
  added_bean_payer: "补杠的 3 分谁付：三家都付，或只由供碰牌者付",
  chickens_require_ready: "只有胡牌者和听牌的人算鸡分（要填“听牌的玩家”）；其他人照付",
  wild_chicken: "野鸡是翻牌的下一张；或翻牌本身和下一张",
  base_points: "底分：胡牌和黄牌的分都乘以它",
  base_score: "底分：胡牌、炮子和杠的分都是它的倍数",
  black_chicken: "八筒也算鸡，每张 2 分（不算金鸡、冲锋鸡、责任鸡）",
  discarder_pays_all: "点炮（或抢杠）时放炮者替三家付这一手（× 3）；炮子照常",
  indomitable: "只有一家手里有精时的霸王精：翻倍，或加 10 分",
  plain_needs_self_draw: "只有平胡的牌不能点炮胡，要自摸",
  fishing: "胡牌后从牌墙末尾翻开的最多三张牌",
  sealed: "封胡：哪一家被封、被谁封",
  "sealed.seat": "被封的一家：这一局不能胡",
  "sealed.by": "封胡的一家：他胡牌时由被封者付（见规则）",
  hand_points: "改写：这手牌按这个分值算，而不按规则表",
  indicator: "翻开的牌",
  spirits: "其他各家的精（用于精的结算；没填的一家按没有精算）；胡牌者的从手牌读",
  contract: "三摊承包：胡牌者从哪一家吃碰了三组；由他独付台数 × 5",
  dealer_streak: "庄家连胡第 n 次，这手牌乘以 n（仅限庄家胡牌）",
  chickens: "按座位：其他各家手里和副露中的鸡（幺鸡、野鸡）；胡牌者的从手牌读",
  responsibility: "责任鸡：碰或杠了幺鸡的另一家",
  rushing_chicken: "冲锋鸡：这一局第一个打出幺鸡的一家",
  ready: "这一局结束时已听牌的其他各家",
  kongs: "其他各家的杠，当即结算",
  paozi: "炮子：每家开局前下的注，0–4",
  cap: "封顶：一家为一手牌最多付的分（含庄家翻倍；杠、精、鸡的即时结算不封顶）",
  dealer_double: "庄家翻倍：庄家输牌付双倍，赢牌收双倍",
  spirit_groups: "全由精组成的一组或一对可以当任何牌",
  pure_suit_double: "清一色翻倍：一色（不带字牌，含副露）的手牌分加倍",
};
// The values of the cities' choice fields (options), by value.
const CHOICE_ZH = {
  double: "翻倍",
  plus_ten: "加 10 分",
  max: "取最高一项",
  sum: "各项相加",
  green_red_white: "发→中→白",
  red_green_white: "中→发→白",
  green_white_red: "发→白→中",
  natural: "自然（没把精当百搭用）",
  no_spirits: "手里没有精",
  off: "不算",
  discarder: "放炮者付",
  all_pay: "三家都付（放炮者加倍）",
  seven: "七张",
  three: "三张",
  next_only: "只算下一张",
  all: "三家都付",
  feeder: "只由供牌者付",
  next: "翻牌的下一张",
  flipped_and_next: "翻牌和下一张",
  kong: "明杠",
  added_kong: "补杠",
  concealed_kong: "暗杠",
};

// The scorer's warnings under a score are English sentences without codes: the known ones
// by their start (numbers kept; a seat is named by its wind), the rest by a general line.
const seatZh = (n) => `${WIND_TEXT.zh[Number(n)] || n}家`;
const seatsZh = (list) => String(list).split(/[\s,]+/).filter(Boolean).map(seatZh).join("、");
const SCORE_WARNING_ZH = [
  [/^no indicator given/, () => "没有翻牌：不算野鸡（只算幺鸡）"],
  [/^fishing tiles '([^']*)' ignored: the winner holds (\d+) tiles.*needs (\d+)/, (m) => `钓鱼牌 ${m[1]} 不算：胡牌者副露外只有 ${m[2]} 张，钓鱼需要 ${m[3]} 张`],
  [/^first_turn on a discard scores no row/, () => "点炮胡不算天胡地胡（天胡、地胡须自摸）"],
  [/^sealed: .* show (\d+) that may come from seat (\d+)/, (m) => `封胡：规则要求被封者供了三组碰杠，但胡牌者的副露里只有 ${m[1]} 组可能来自${seatZh(m[2])}`],
  [/^spirits: seat\(s\) (.*) not given; counted as holding no spirits(; true virtuous)?/, (m) => `精：${seatsZh(m[1])}未填写，按没有精计算${m[2] ? "；德中德需要各家的精数，未计" : ""}`],
  [/^last_tile: 海底捞月/, () => "海底捞月须自摸最后一张；点炮不加台"],
  [/^first_turn: heavenly needs/, () => "天胡须庄家自摸，地胡须闲家胡庄家第一张打出的牌；不加台"],
  [/^melds: (\d+) melds claimed from seat (\d+)/, (m) => `副露：有 ${m[1]} 组来自${seatZh(m[2])}；如适用三摊承包，请把“三摊承包”设为${seatZh(m[2])}`],
  [/^first_turn: Shaanxi has no heavenly/, () => "陕西麻将没有天胡地胡；忽略"],
  [/^last_tile: Shaanxi pays nothing/, () => "陕西麻将海底不加分；忽略"],
];

export function scoreWarningText(text) {
  if (LANG !== "zh") return text;
  for (const [pattern, zh] of SCORE_WARNING_ZH) {
    const m = pattern.exec(text);
    if (m) return zh(m);
  }
  const numbers = String(text).match(/-?\d+(\.\d+)?/g);
  return `计分提示${numbers ? `（${numbers.join("、")}）` : ""}`;
}

let LANG = chooseLanguage();
const listeners = [];

function chooseLanguage() {
  const saved = localStorage.getItem(LANG_KEY);
  if (saved === "zh" || saved === "en") return saved;
  const wanted = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || "en"];
  for (const tag of wanted) {
    const lower = String(tag).toLowerCase();
    if (lower.startsWith("zh")) return "zh";
    if (lower.startsWith("en")) return "en";
  }
  return "en";
}

/** The page's language: "zh" or "en". */
export function lang() {
  return LANG;
}

export const isZh = () => LANG === "zh";

export function t(key, vars) {
  // an empty text is a text ("" money unit in English), not a missing one
  const own = TEXT[LANG] && TEXT[LANG][key];
  let text = own !== undefined ? own : TEXT.en[key] !== undefined ? TEXT.en[key] : key;
  for (const [k, v] of Object.entries(vars || {})) text = text.split(`{${k}}`).join(String(v));
  return text;
}

const CJK = /[\u3400-\u9fff\uf900-\ufaff]+(?:[\s·:：]*[\u3400-\u9fff\uf900-\ufaff]+)*/;

/** The Chinese part of an API name ("Pure suit 清一色" → "清一色"), or null. */
function chinesePart(text) {
  const m = CJK.exec(String(text || ""));
  return m ? m[0] : null;
}

/** The English part ("Pure suit 清一色" → "Pure suit"). */
function englishPart(text) {
  const s = String(text || "").replace(/[\u3400-\u9fff\uf900-\ufaff]+/g, "").replace(/\s+/g, " ").trim();
  return s.replace(/\s+([,:)])/g, "$1") || String(text || "");
}

export function tileName(tile) {
  const rank = Number(tile[0]);
  const suit = tile[1];
  if (LANG === "zh") {
    if (suit === "z") return HONOR_ZH[rank - 1] || tile;
    if (suit === "f") return FLOWER_ZH[rank - 1] || tile;
    return `${RANK_ZH[rank - 1]}${SUIT_ZH[suit]}`;
  }
  if (suit === "z") return HONOR_EN[rank - 1] || tile;
  if (suit === "f") return FLOWER_EN[rank - 1] || tile;
  return `${rank} ${SUIT_EN[suit]}`;
}

export function winText(method) {
  return WIN_TEXT[LANG][method] || method;
}

export function windText(index) {
  return WIND_TEXT[LANG][index] || String(index);
}

export function meldText(kind) {
  return MELD_TEXT[LANG][kind] || kind;
}

export function cityTitle(city) {
  if (!city) return "";
  return (LANG === "zh" ? chinesePart(city.title) : englishPart(city.title)) || city.title || city.name;
}

export function patternText(p) {
  const unit = UNIT_TEXT[LANG][p.unit] || p.unit;
  const name = LANG === "zh" ? PATTERN_ZH[p.code] || chinesePart(p.name) || p.code : englishPart(p.name);
  return p.unit === "x" ? `${name}: ×${p.value}` : `${name}: ${p.value} ${unit}`;
}

export function itemText(item) {
  if (LANG !== "zh") return item.text;
  return chinesePart(item.text) || ITEM_ZH[item.reason] || "结算";
}

export function groupText(group) {
  return GROUP_TEXT[LANG][group] || group;
}

export function fieldLabel(name) {
  const last = String(name).split(".").pop();
  if (LANG === "zh") return FIELD_ZH[name] || FIELD_ZH[last] || "选项";
  const words = last.replace(/_/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A field's help: the API's (English) or this page's Chinese, or none. */
export function fieldDoc(name, doc) {
  if (LANG !== "zh") return doc || "";
  return FIELD_DOC_ZH[name] || "";
}

// The options' choices in English words (the API's codes otherwise: "sum", "all_pay").
const CHOICE_EN = {
  max: "the highest row",
  sum: "rows added up",
  natural: "natural (no spirit used as a wild)",
  no_spirits: "no spirits in hand",
  off: "off",
  discarder: "the discarder pays",
  all_pay: "all three pay (the discarder double)",
  seven: "seven tiles",
  three: "three tiles",
  next_only: "the next tile only",
  all: "all three pay",
  feeder: "the feeder alone pays",
  next: "the tile after the flipped one",
  flipped_and_next: "the flipped tile and the next",
  double: "double",
  plus_ten: "plus 10",
  kong: "exposed kong",
  added_kong: "added kong",
  concealed_kong: "concealed kong",
};

export function choiceText(value) {
  if (LANG !== "zh") return CHOICE_EN[value] || String(value).replace(/_/g, " ");
  return CHOICE_ZH[value] || String(value);
}

const MINIMUM_ZH = [
  [/(-?\d+) tai; a Ningbo win needs at least (\d+)/, (m) => `只有 ${m[1]} 台，宁波麻将至少要 ${m[2]} 台才能胡。`],
  [/collect (-?\d+) before sealing and fishing; the minimum is (\d+)/, (m) => `胡牌者只能收 ${m[1]} 分（封胡、钓鱼之前），起胡分是 ${m[2]}。`],
];

export function verdictText(result) {
  if (LANG === "zh") {
    if (result.reason === "below_minimum") {
      for (const [pattern, zh] of MINIMUM_ZH) {
        const m = pattern.exec(result.message || "");
        if (m) return `没有达到起胡分：${zh(m)}`;
      }
    }
    return REASON_TEXT.zh[result.reason] || "不能算分。";
  }
  return result.message || REASON_TEXT.en[result.reason] || result.reason;
}

/** An API error as the player reads it: by code, and on a Chinese page the server's reason
 * in Chinese as ``detail`` (issue #39, row 6: never its English words). */
export function errorText(err) {
  const byCode = err && err.code ? ERROR_TEXT[LANG][err.code] : null;
  if (LANG === "zh") {
    const where = err && err.field ? pathZh(err.field, FIELD_ZH) || fieldLabel(err.field) : "";
    const field = where ? t("error_field", { field: where }) : "";
    return { message: (byCode || (err && err.local) || "出错了。") + field, detail: err ? reasonDetail(err) : "" };
  }
  return { message: (err && (err.local || err.message)) || String(err), detail: "" };
}

/** The server's reason for ``err`` in Chinese: a hand that does not score by its verdict,
 * any other reason by its shape; "" for an error the page made itself. */
function reasonDetail(err) {
  if (err.local || !err.code || !err.message) return "";
  if (err.reason) return verdictText(err.result && err.result.reason ? err.result : { reason: err.reason });
  // the field is named in the message already
  return reasonZh(err.message, err.field, FIELD_ZH, false) || t("reason_untranslated");
}

/** A kept hand's problem (the ledger's ``problem``: a verdict's code, or "invalid: …" for a
 * hand its table can no longer score as given), in the page's language. */
export function problemText(problem) {
  const text = String(problem || "");
  if (text.startsWith("invalid: ")) {
    const message = text.slice("invalid: ".length);
    if (LANG !== "zh") return message;
    const field = /^([\w.[\]]+): /.exec(message);
    return reasonZh(message, field ? field[1] : "", FIELD_ZH) || t("reason_untranslated");
  }
  return verdictText({ reason: text }).replace(/[。.]$/, "");
}

export function hintText(err) {
  if (err.code && ADVICE_TEXT[LANG][err.code]) return ADVICE_TEXT[LANG][err.code];
  return LANG === "en" ? err.hint : null;
}

export function warningText(w) {
  if (LANG === "zh") return (WARNING_TEXT.zh[w.code] || "识别提示") + "。";
  return w.message;
}

/** A doubt about a score read from a photo (hupai.vision.trust), in the page's words. */
export function doubtText(d) {
  return DOUBT_TEXT[LANG][d.code] || (LANG === "zh" ? "这个分数需要核对" : d.message);
}

export function adviceText(w) {
  const advice = ADVICE_TEXT[LANG][w.code];
  if (advice) return advice;
  if (LANG === "zh") return "";
  // a code this page does not know yet: the server's advice, less any command-line option
  return String(w.advice || "").replace(/\s*\([^)]*--[a-z-]+[^)]*\)/g, "").replace(/,? or give it\b[^.]*/g, "");
}

/** Static text: elements marked data-i18n (text), data-i18n-placeholder, data-i18n-aria. */
export function applyStaticText() {
  document.documentElement.lang = LANG === "zh" ? "zh-CN" : "en";
  document.title = t("title");
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of document.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
  for (const el of document.querySelectorAll("[data-i18n-aria]")) el.setAttribute("aria-label", t(el.dataset.i18nAria));
}

/** Called after every change of language (the modules redraw what they drew). */
export function onLanguage(fn) {
  listeners.push(fn);
}

/** Switch the language, remember it, and redraw (each module keeps its data as it is). */
export function setLanguage(next) {
  LANG = next;
  localStorage.setItem(LANG_KEY, next);
  applyStaticText();
  for (const fn of listeners) fn();
}
