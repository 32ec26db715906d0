/**
 * `shale levels --svg`: the LSM as a picture.
 *
 * ```
 *  key: a ........................................................ z
 *  L0  [#41      ]           [#44 ]                                 one row per L0 table
 *            [#42                ]                                  (they overlap)
 *  L1  [#30 ][#31    ][#32][#33       ][#34 ]                        tables side by side
 *  L2  [#12        ][#13          ][#14         ][#15            ]
 *  legend: one colour per level, darker = bigger file; size scale
 * ```
 * x: a table spans its key range on one key axis shared by every level (ordinal: the bounds
 * of all tables, sorted, see keyAxis); y: one band per level, L0 split into a row per
 * table. Shade:
 * file size relative to the biggest table. Each table is a `<rect class="table">` with a
 * `<title>` (number, level, size, key range, sequence numbers) for hover; the legend's
 * rectangles have other classes. Self-contained SVG 1.1, no script, no external reference.
 */
import { formatBytes } from "./bytes-format.js";
import type { LevelInfo, TableInfo } from "./levels-model.js";

const WIDTH = 960;
const LEFT = 56;
const RIGHT = 16;
const ROW = 22;
const GAP = 10;
const TOP = 44;
/** Hues per level (L0 .. L6). */
const HUES = [4, 28, 48, 140, 190, 220, 280];

export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1048576) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1073741824) return `${(bytes / 1048576).toFixed(1)} MiB`;
  return `${(bytes / 1073741824).toFixed(2)} GiB`;
}

/**
 * Maps table bounds to [0, 1] on an ordinal axis (byte values of keys such as "key000123"
 * say little about where they fall in the data): every table's smallest and largest key,
 * sorted and deduplicated, with a step of 1 between two neighbours that some table spans
 * and of GAP_STEP where no table does (the space between adjacent tables of a level).
 * `end` marks a right edge (it matters only when every key is the same).
 */
const GAP_STEP = 0.1;

function keyAxis(tables: readonly TableInfo[]): (key: Uint8Array, end: boolean) => number {
  const bounds = tables.flatMap((t) => [t.smallest, t.largest]).sort(Buffer.compare);
  const unique: Uint8Array[] = [];
  for (const b of bounds) {
    if (unique.length === 0 || Buffer.compare(unique[unique.length - 1]!, b) !== 0) unique.push(b);
  }
  const at = [0];
  for (let j = 0; j + 1 < unique.length; j++) {
    const lo = unique[j]!;
    const hi = unique[j + 1]!;
    const spanned = tables.some(
      (t) => Buffer.compare(t.smallest, lo) <= 0 && Buffer.compare(t.largest, hi) >= 0,
    );
    at.push(at[j]! + (spanned ? 1 : GAP_STEP));
  }
  const total = at[at.length - 1]!;
  return (key, end) => {
    if (total === 0) return end ? 1 : 0; // one key only: every table spans the axis
    let lo = 0;
    let hi = unique.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (Buffer.compare(unique[mid]!, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return at[lo]! / total;
  };
}

/** Renders the levels (see the file header); `title` heads the picture. */
export function renderLevelsSvg(levels: readonly LevelInfo[], title: string): string {
  const tables = levels.flatMap((l) => l.files);
  const x = keyAxis(tables);
  const maxSize = Math.max(1, ...tables.map((t) => t.size));
  let deepest = 0;
  levels.forEach((l) => {
    if (l.files.length > 0) deepest = l.level;
  });
  const shown = levels.filter((l) => l.level <= Math.max(deepest, 1));
  const plot = WIDTH - LEFT - RIGHT;
  const body: string[] = [];
  let y = TOP;
  for (const level of shown) {
    const rows = level.level === 0 ? Math.max(1, level.files.length) : 1;
    const height = rows * ROW;
    const hue = HUES[level.level % HUES.length]!;
    body.push(
      `<rect class="band" x="${LEFT}" y="${y}" width="${plot}" height="${height}" fill="#f6f6f6"/>`,
      `<text class="level-label" x="${LEFT - 8}" y="${y + height / 2 + 4}" text-anchor="end">L${level.level}</text>`,
      `<text class="level-stats" x="${WIDTH - RIGHT}" y="${y - 2}" text-anchor="end" font-size="10" fill="#666">${level.files.length} files, ${escapeXml(humanSize(level.bytes))}</text>`,
    );
    level.files.forEach((t, i) => {
      const row = level.level === 0 ? i : 0;
      const x0 = LEFT + x(t.smallest, false) * plot;
      const x1 = LEFT + x(t.largest, true) * plot;
      const w = Math.max(2, x1 - x0);
      const lightness = Math.round(82 - 50 * (t.size / maxSize));
      const tip =
        `#${t.number} L${level.level} ${humanSize(t.size)} ` +
        `[${formatBytes(t.smallest, "utf8")} .. ${formatBytes(t.largest, "utf8")}] seq ${t.smallestSeq}..${t.largestSeq}`;
      body.push(
        `<rect class="table" data-level="${level.level}" data-number="${t.number}" data-size="${t.size}" ` +
          `x="${x0.toFixed(1)}" y="${y + row * ROW + 2}" width="${w.toFixed(1)}" height="${ROW - 4}" ` +
          `fill="hsl(${hue},70%,${lightness}%)" stroke="#333" stroke-width="0.5"><title>${escapeXml(tip)}</title></rect>`,
      );
      if (w > 34) {
        body.push(
          `<text class="table-label" x="${(x0 + 3).toFixed(1)}" y="${y + row * ROW + ROW / 2 + 4}" font-size="10" fill="${lightness < 55 ? "#fff" : "#000"}">#${t.number}</text>`,
        );
      }
    });
    y += height + GAP;
  }
  // Key axis labels: the smallest and largest key.
  const all = tables.length > 0;
  const lo = all
    ? tables.reduce(
        (a, t) => (Buffer.compare(t.smallest, a) < 0 ? t.smallest : a),
        tables[0]!.smallest,
      )
    : undefined;
  const hi = all
    ? tables.reduce(
        (a, t) => (Buffer.compare(t.largest, a) > 0 ? t.largest : a),
        tables[0]!.largest,
      )
    : undefined;
  const axisY = y + 4;
  const axis = [
    `<line x1="${LEFT}" y1="${axisY}" x2="${LEFT + plot}" y2="${axisY}" stroke="#999"/>`,
    `<text class="axis" x="${LEFT}" y="${axisY + 14}" font-size="11">${escapeXml(lo ? formatBytes(lo, "utf8") : "(no tables)")}</text>`,
    `<text class="axis" x="${LEFT + plot}" y="${axisY + 14}" font-size="11" text-anchor="end">${escapeXml(hi ? formatBytes(hi, "utf8") : "")}</text>`,
    `<text class="axis" x="${LEFT + plot / 2}" y="${axisY + 14}" font-size="11" text-anchor="middle" fill="#666">user key →</text>`,
  ];
  // Legend: level hues and the size shade scale.
  const legendY = axisY + 32;
  const legend: string[] = [`<text x="${LEFT}" y="${legendY + 11}" font-size="11">level:</text>`];
  shown.forEach((l, i) => {
    const lx = LEFT + 44 + i * 46;
    legend.push(
      `<rect class="legend" x="${lx}" y="${legendY}" width="14" height="14" fill="hsl(${HUES[l.level % HUES.length]},70%,57%)"/>`,
      `<text x="${lx + 18}" y="${legendY + 11}" font-size="11">L${l.level}</text>`,
    );
  });
  const sx = LEFT + 44 + shown.length * 46 + 30;
  legend.push(`<text x="${sx}" y="${legendY + 11}" font-size="11">size:</text>`);
  for (let i = 0; i <= 4; i++) {
    legend.push(
      `<rect class="legend" x="${sx + 34 + i * 18}" y="${legendY}" width="16" height="14" fill="hsl(0,0%,${Math.round(82 - 50 * (i / 4))}%)"/>`,
    );
  }
  legend.push(
    `<text x="${sx + 34 + 5 * 18 + 4}" y="${legendY + 11}" font-size="11">0 … ${escapeXml(humanSize(maxSize))} (darker = bigger)</text>`,
  );
  const height = legendY + 28;
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif">`,
    `<rect class="background" x="0" y="0" width="${WIDTH}" height="${height}" fill="#fff"/>`,
    `<text class="title" x="${LEFT}" y="24" font-size="15" font-weight="bold">${escapeXml(title)}</text>`,
    `<text x="${WIDTH - RIGHT}" y="24" font-size="11" text-anchor="end" fill="#666">${tables.length} tables, ${escapeXml(humanSize(tables.reduce((n, t) => n + t.size, 0)))}</text>`,
    ...body,
    ...axis,
    ...legend,
    `</svg>`,
    "",
  ].join("\n");
}
