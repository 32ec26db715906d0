/**
 * The summary table the soaks print (crash-soak.test.ts, fault-soak.test.ts), after
 * RocksDB's crash test: per row the rounds, trials, lost (acknowledged writes missing), wrong
 * (present with another value, torn, or a read that failed) and failed opens.
 *
 * ```text
 * crash soak (SIGKILL)    rounds  trials    lost   wrong  failed opens
 *   all rounds              1000   81234       0       0             0
 * ```
 */

export interface SoakTally {
  rounds: number;
  trials: number;
  lost: number;
  wrong: number;
  failedOpens: number;
}

/**
 * The table of `rows` (name, tally) under `title`, with a total row when there are several.
 * `labels` names the first two columns (the fault soak counts trials, and those whose fault
 * fired).
 */
export function soakSummary(
  title: string,
  rows: readonly (readonly [string, SoakTally])[],
  labels: readonly [string, string] = ["rounds", "trials"],
): string {
  const all: (readonly [string, SoakTally])[] = [...rows];
  if (rows.length > 1) {
    const total: SoakTally = { rounds: 0, trials: 0, lost: 0, wrong: 0, failedOpens: 0 };
    for (const [, t] of rows) {
      total.rounds += t.rounds;
      total.trials += t.trials;
      total.lost += t.lost;
      total.wrong += t.wrong;
      total.failedOpens += t.failedOpens;
    }
    all.push(["total", total]);
  }
  const width = Math.max(title.length, ...all.map(([n]) => n.length + 2));
  const cols = [...labels, "lost", "wrong", "failed opens"];
  const line = (name: string, cells: readonly (string | number)[]) =>
    name.padEnd(width) + cells.map((c, i) => String(c).padStart(cols[i]!.length + 2)).join("");
  return [
    line(title, cols),
    ...all.map(([n, t]) => line(`  ${n}`, [t.rounds, t.trials, t.lost, t.wrong, t.failedOpens])),
  ].join("\n");
}
