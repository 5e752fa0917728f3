// Lifting functions and constants out of OpenClaw's compiled bundles (dist/*.js) for the oracle tests.

// The source of the top-level `function NAME(` (to its closing `}` at column 0) or `const NAME =` (to the line ending
// in `;`) of each of `names`, in order, from a bundle's `lines`.
export function extract(lines, names) {
  const out = [];
  for (const name of names) {
    const fn = lines.findIndex((l) => l.startsWith(`function ${name}(`));
    if (fn >= 0) {
      const end = lines.findIndex((l, i) => i > fn && l === "}");
      out.push(lines.slice(fn, end + 1).join("\n"));
      continue;
    }
    const c = lines.findIndex((l) => l.startsWith(`const ${name} =`));
    if (c < 0) throw new Error(`not found in bundle: ${name}`);
    let end = c;
    while (!lines[end].trimEnd().endsWith(";")) end++;
    out.push(lines.slice(c, end + 1).join("\n"));
  }
  return out.join("\n");
}
