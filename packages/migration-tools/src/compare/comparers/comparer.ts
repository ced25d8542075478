/**
 * What a body comparer is: a media type it reads, a parse into a tree (JSONPath rules run on it), a diff, a pretty
 * form.
 */
import type { FieldDiff } from '../types.ts';

export interface ParsedBody {
  /** The body as a value: JSON's value, XML's element tree, CSV's rows, text's lines. `--ignore` paths run on it. */
  tree: unknown;
  /** Differences outside the tree, compared as named fields (a JSONP callback name). */
  meta?: Record<string, string>;
  /** The body as people read it, for the side-by-side view. */
  pretty: string;
}

export interface BodyComparer {
  name: string;
  accepts(mediaType: string): boolean;
  /** Throws when the body is not of this kind (then the two bodies are compared as text). */
  parse(body: string): ParsedBody;
  /** Defaults to the field-by-field tree diff. */
  diff?(a: ParsedBody, b: ParsedBody): FieldDiff[];
}
