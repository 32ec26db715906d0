/**
 * The universal and FIFO compaction pickers, data-driven (testdata/picker-universal/*.txt,
 * testdata/picker-fifo/*.txt; `SHALE_REWRITE=1` regenerates the outputs).
 *
 * Commands:
 * - `universal [trigger=4] [ratio=1] [min-width=2] [max-width=N] [amp=200]
 *   [stop=totalSize|similarSize] [compression-size-percent=-1]` — input: `L<n> <file>` lines
 *   (test-support/lsm-text); a universal picker over that version; output: the version.
 * - `fifo [max=1G] [ttl=0] [now=<seconds>] [allow-compaction] [trigger=4] [write-buffer=64M]
 *   [target=64M]` — the same for a FIFO picker with a fixed clock.
 * - `runs [busy=(n, ...)]` — the universal sorted runs, newest first.
 * - `scores [busy=(n, ...)]` — the L0 score (the others are 0 for both styles).
 * - `pick [busy=(...)] [running=(L<a>->L<b>:<lo>-<hi>, ...)]` — the automatic pick:
 *   `Compaction.toString()`, its reason, and for a rewrite the output file limit and codec.
 * - `pick-manual [busy=(...)]` — universal's compactRange pick (everything), or empty/busy.
 */
import { dataDrivenTests, keyText, parseKeyText } from "@shale/base/testing";
import type { CompressionName } from "@shale/sstable";
import {
  FIFO_DEFAULTS,
  type ResolvedUniversalOptions,
  UNIVERSAL_DEFAULTS,
} from "../core/compaction-style-options.js";
import {
  icmp,
  parseSize,
  parseVersion,
  versionText,
} from "../test-support/lsm-text.test-support.js";
import { Version } from "../version/version-set.js";
import type { Compaction } from "./compaction.js";
import type { RunningCompaction } from "./picker.js";
import { FifoCompactionPicker } from "./picker-fifo.js";
import { UniversalCompactionPicker } from "./picker-universal.js";

function compactionText(c: Compaction): string {
  const lines = [c.toString(), `  reason: ${c.reason}, score ${c.score.toFixed(2)}`];
  if (!c.deletion) {
    const limit = c.maxOutputFileSize;
    lines.push(
      `  output: L${c.outputLevel}, ${limit === undefined ? "target file size" : limit >= Number.MAX_SAFE_INTEGER ? "one table" : `tables of ${limit} bytes`}, codec ${c.outputCompression ?? "default"}`,
      `  range: [${keyText(c.range.lo)}, ${keyText(c.range.hi)}]`,
    );
  }
  return lines.join("\n");
}

function parseRunning(text: string): RunningCompaction {
  const m = /^L(\d)->L(\d):(.+)-(.+)$/.exec(text);
  if (m === null) throw new TypeError(`bad running compaction ${text}: want L<a>->L<b>:lo-hi`);
  return {
    level: Number(m[1]),
    outputLevel: Number(m[2]),
    range: { lo: parseKeyText(m[3]!), hi: parseKeyText(m[4]!), hiExclusive: false },
  };
}

dataDrivenTests(new URL("../../testdata/picker-universal", import.meta.url), () => styleHandler());
dataDrivenTests(new URL("../../testdata/picker-fifo", import.meta.url), () => styleHandler());

function styleHandler() {
  let version = Version.empty();
  let picker: UniversalCompactionPicker | FifoCompactionPicker | undefined;
  const busyOf = (values: string[]) => new Set(values.map(Number));
  return (c: import("@shale/base/testing").DataDrivenCase) => {
    switch (c.cmd) {
      case "universal": {
        const universal: ResolvedUniversalOptions = {
          ...UNIVERSAL_DEFAULTS,
          sizeRatio: c.numArg("ratio", UNIVERSAL_DEFAULTS.sizeRatio),
          minMergeWidth: c.numArg("min-width", UNIVERSAL_DEFAULTS.minMergeWidth),
          maxMergeWidth: c.numArg("max-width", UNIVERSAL_DEFAULTS.maxMergeWidth),
          maxSizeAmplificationPercent: c.numArg(
            "amp",
            UNIVERSAL_DEFAULTS.maxSizeAmplificationPercent,
          ),
          compressionSizePercent: c.numArg(
            "compression-size-percent",
            UNIVERSAL_DEFAULTS.compressionSizePercent,
          ),
          stopStyle: c.arg("stop", "totalSize") === "similarSize" ? "similarSize" : "totalSize",
        };
        picker = new UniversalCompactionPicker(icmp, {
          universal,
          level0FileNumCompactionTrigger: c.numArg("trigger", 4),
          targetFileSizeBase: 2 * 1024 * 1024,
          ...(c.hasArg("compression")
            ? { compression: c.arg("compression") as CompressionName, compressionPerLevel: [] }
            : {}),
        });
        version = parseVersion(c.input);
        return versionText(version, true);
      }
      case "fifo": {
        const now = c.numArg("now", 0);
        picker = new FifoCompactionPicker(icmp, {
          fifo: {
            maxTableFilesSize: parseSize(c.arg("max", "1G")),
            ttl: c.numArg("ttl", 0),
            allowCompaction: c.hasArg("allow-compaction") || FIFO_DEFAULTS.allowCompaction,
          },
          level0FileNumCompactionTrigger: c.numArg("trigger", 4),
          writeBufferSize: parseSize(c.arg("write-buffer", "64M")),
          targetFileSizeBase: parseSize(c.arg("target", "64M")),
          nowSeconds: () => now,
        });
        version = parseVersion(c.input);
        return versionText(version, true);
      }
      case "runs": {
        if (!(picker instanceof UniversalCompactionPicker)) return c.fail("runs: not universal");
        return picker
          .sortedRuns(version, busyOf(c.argValues("busy")))
          .map(
            (r) =>
              `${r.level === 0 ? `L0 file ${r.file!.number}` : `L${r.level}`} ${(r.size / 1024 / 1024).toFixed(2)}M${r.busy ? " busy" : ""}`,
          )
          .join("\n");
      }
      case "scores": {
        if (picker === undefined) return c.fail("define a picker first");
        return `L0: ${picker.scores(version, busyOf(c.argValues("busy")))[0]!.toFixed(2)}`;
      }
      case "pick": {
        if (picker === undefined) return c.fail("define a picker first");
        const p = picker.pick(
          version,
          busyOf(c.argValues("busy")),
          c.argValues("running").map(parseRunning),
        );
        return p === undefined ? "none" : compactionText(p);
      }
      case "pick-manual": {
        if (!(picker instanceof UniversalCompactionPicker))
          return c.fail("pick-manual: not universal");
        const p = picker.pickManual(version, busyOf(c.argValues("busy")), []);
        return typeof p === "string" ? p : compactionText(p);
      }
      default:
        return c.fail("unknown command");
    }
  };
}
