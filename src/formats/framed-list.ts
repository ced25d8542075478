/**
 * A list written as a frame around its items' texts: `open`, the texts joined by `separator`, `close` (JSON and JSV
 * `[`, `,`, `]`; XML the root element; CSV the header row), each item's text the same wherever it stands.
 */
import type { ListWriter, Written } from './registry.ts';

export interface ListFrame {
  open: string;
  separator: string;
  close: string;
}

/** The ListWriter of `frame` around `item`'s texts; `written` gives the list's body the format's headers. */
export function framedList(
  { open, separator, close }: ListFrame,
  item: (dto: unknown) => string,
  written: (body: string) => string | Written = (body) => body,
): ListWriter {
  const frameBytes = Buffer.byteLength(open) + Buffer.byteLength(close);
  const separatorBytes = Buffer.byteLength(separator);
  return {
    item,
    bytes: (count, itemBytes) => frameBytes + itemBytes + separatorBytes * Math.max(0, count - 1),
    write: (texts) => written(open + texts.join(separator) + close),
  };
}
