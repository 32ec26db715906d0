/**
 * One column family as the operations of ops/ see it (ops/host.ts `OpsFamily`): its
 * comparator, current version, the tables its running compactions hold, and a MANIFEST edit
 * applied to it.
 */
import type { OpsFamily } from "../ops/host.js";
import type { ColumnFamilyData } from "./column-family-data.js";

export function opsFamilyOf(cf: ColumnFamilyData): OpsFamily {
  return {
    icmp: cf.icmp,
    current: () => cf.current,
    busyFiles: () => cf.compactions.busy,
    applyEdit: (edit) => {
      cf.versions.logAndApply(edit);
      cf.versionChanged();
    },
  };
}
