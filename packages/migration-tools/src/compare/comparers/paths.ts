/** Body paths as JSONPath strings (`$.A.B[3]['Jan 2024']`) and their generalised form for grouping (`[3]` → `[*]`). */

export function jsonPath(segments: readonly (string | number)[]): string {
  let out = '';
  for (const segment of segments) {
    if (segment === '$') out += '$';
    else if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_][\w]*$/.test(segment)) out += `.${segment}`;
    else out += `[${JSON.stringify(segment).replace(/^"|"$/g, "'")}]`;
  }
  return out;
}

/** The path with array indices generalised, so that one field of every row counts as one field. */
export function generalPath(path: string): string {
  return path.replace(/\[\d+\]/g, '[*]');
}
