/**
 * Request sources, like the body comparers a registry of small parts: each names itself, recognises its files and
 * reads them. A source argument is `battery`, `NAME:FILE` (e.g. `w3c:u_ex240101.log`) or a file whose kind is
 * recognised from its content.
 */
import { readFileSync } from 'node:fs';
import type { SourceResult } from '../types.ts';
import { readAccessLog } from './access-log.ts';
import { readBattery, type BatteryOptions } from './battery.ts';
import { readHar } from './har.ts';
import { readUrlList } from './url-list.ts';
import { readW3cLog } from './w3c-log.ts';

export interface RequestSource {
  name: string;
  description: string;
  /** Whether a file starting with `head` is of this kind (the url list accepts anything, so it is last). */
  recognises(head: string, file: string): boolean;
  read(file: string, text: string): SourceResult;
}

export const REQUEST_SOURCES: readonly RequestSource[] = [
  {
    name: 'har',
    description: 'HAR file (devtools, Fiddler, Charles)',
    recognises: (head, file) => /\.har$/i.test(file) || /^\s*\{[\s\S]*"log"\s*:/.test(head),
    read: readHar,
  },
  {
    name: 'w3c',
    description: 'IIS W3C extended log (#Fields: directive)',
    recognises: (head) => /^#(Software|Version|Date|Fields):/m.test(head),
    read: readW3cLog,
  },
  {
    name: 'access-log',
    description: 'common/combined access log',
    recognises: (head) => /^\S+ \S+ \S+ \[[^\]]+\] "/m.test(head),
    read: readAccessLog,
  },
  { name: 'urls', description: 'URLs or METHOD URL lines', recognises: () => true, read: readUrlList },
];

export interface LoadedSource extends SourceResult {
  spec: string;
  source: string;
}

export function loadSource(spec: string, battery: BatteryOptions = {}): LoadedSource {
  if (spec === 'battery') return { spec, source: 'battery', ...readBattery(battery) };
  const named = /^([a-z0-9-]+):(.+)$/.exec(spec);
  const explicit = named && REQUEST_SOURCES.find((s) => s.name === named[1]);
  const file = explicit ? named[2]! : spec;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new Error(`source ${file}: ${missing ? 'no such file' : (error as Error).message}`);
  }
  const source = explicit ?? REQUEST_SOURCES.find((s) => s.recognises(text.slice(0, 4096), file))!;
  return { spec, source: source.name, ...source.read(file, text) };
}
