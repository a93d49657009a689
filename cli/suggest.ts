/** Edits (insert, delete, replace, swap two neighbours) between `a` and `b`. */
const editDistance = (a: string, b: string): number => {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
};

/**
 * The known name closest to a mistyped `given`, when one is close enough to be what was meant: at
 * most one edit for names up to 4 letters, two for longer ones; a prefix of a known name counts too.
 */
export const closestName = (given: string, known: readonly string[]): string | undefined => {
  const typed = given.toLowerCase();
  const scored = known
    .map((name) => ({ name, distance: name.startsWith(typed) ? 0 : editDistance(typed, name) }))
    .filter(({ name, distance }) => distance <= (Math.max(typed.length, name.length) <= 4 ? 1 : 2))
    .sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name));
  return typed === '' ? undefined : scored[0]?.name;
};

/** `; did you mean "NAME"?` for a mistyped command, or nothing. */
export const didYouMean = (given: string, known: readonly string[]): string => {
  const name = closestName(given, known);
  return name === undefined ? '' : `; did you mean "${name}"?`;
};
