/** Reading a V8 `.cpuprofile`: the functions with the most self time, and by file. */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

/** A V8 CPU profile as `--cpu-prof` writes it. */
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
}

/** A text table of the top self-time functions and files of a profile. */
export function summarizeProfile(profile: CpuProfile, top = 40): string {
  const byNode = new Map<number, ProfileNode>(profile.nodes.map((node) => [node.id, node]));
  const selfTime = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const sample of profile.samples) {
    const frame = byNode.get(sample)?.callFrame;
    if (!frame) continue;
    const file = frame.url.replace(/^.*\/(node_modules|src|ext|bench|tests)\//, "$1/") ||
      "(native)";
    const name = `${frame.functionName || "(anonymous)"} ${file}:${frame.lineNumber + 1}`;
    selfTime.set(name, (selfTime.get(name) ?? 0) + 1);
    byFile.set(file, (byFile.get(file) ?? 0) + 1);
  }
  const total = profile.samples.length;
  const rows = (map: Map<string, number>) =>
    [...map].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, count]) =>
      `${(100 * count / total).toFixed(1).padStart(5)}%  ${name}`
    ).join("\n");
  return `samples: ${total}\n\nby function (self):\n${rows(selfTime)}\n\nby file (self):\n${
    rows(byFile)
  }`;
}
