/**
 * XML element by element, namespace-aware (saxes, the strict parser the SOAP endpoint uses): elements are keyed by
 * local name and compared by namespace URI, never by prefix, so `d2p1:string` and `d3p1:string` (which .NET numbers
 * by depth) or `s:Envelope` and `env:Envelope` are the same element. The root element (the DTO, e.g. `EchoResponse`)
 * is `$`, as in JSON, so one rule (`--ignore '$.ReportModel.BuildTime'`) and one noise field cover both formats; its
 * name is the field `root()`. An element's namespace shows as `@xmlns` where it differs from its parent's; attributes
 * are `@name` (`@xsi:nil` for XML Schema's); repeated elements are arrays; text is kept as written. Child element order
 * matters to DataContract readers, so the same children in another order are a difference too (`….order()`).
 */
import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import { SaxesParser, type SaxesTagNS } from 'saxes';
import type { FieldDiff } from '../types.ts';
import type { BodyComparer, ParsedBody } from './comparer.ts';
import { jsonPath } from './paths.ts';
import { treeDiff } from './tree-diff.ts';

const XSI = 'http://www.w3.org/2001/XMLSchema-instance';
const XMLNS = 'http://www.w3.org/2000/xmlns/';

type XmlNode = Record<string, unknown>;

interface Open {
  node: XmlNode;
  uri: string;
  text: string;
  children: string[];
}

interface XmlDocument {
  root: string;
  tree: unknown;
  /** Child element names in document order, per element path. */
  order: Map<string, string[]>;
}

function attributeKey(attribute: { local: string; uri: string }): string {
  if (!attribute.uri) return `@${attribute.local}`;
  return attribute.uri === XSI ? `@xsi:${attribute.local}` : `@{${attribute.uri}}${attribute.local}`;
}

function readXml(body: string): XmlDocument {
  const parser = new SaxesParser({ xmlns: true });
  const stack: Open[] = [];
  const childOrder = new WeakMap<XmlNode, string[]>();
  let root: { name: string; value: unknown } | undefined;
  parser.on('opentag', (tag: SaxesTagNS) => {
    const parent = stack.at(-1);
    const node: XmlNode = {};
    if (tag.uri !== (parent?.uri ?? '')) node['@xmlns'] = tag.uri;
    for (const attribute of Object.values(tag.attributes)) {
      if (attribute.uri === XMLNS || attribute.name === 'xmlns') continue;
      node[attributeKey(attribute)] = attribute.value;
    }
    parent?.children.push(tag.local);
    stack.push({ node, uri: tag.uri, text: '', children: [] });
  });
  parser.on('text', (text) => {
    const open = stack.at(-1);
    if (open) open.text += text;
  });
  parser.on('cdata', (text) => {
    const open = stack.at(-1);
    if (open) open.text += text;
  });
  parser.on('closetag', (tag: SaxesTagNS) => {
    const open = stack.pop()!;
    const text = open.text.trim();
    const hasContent = Object.keys(open.node).length > 0;
    const value: unknown = hasContent ? (text ? { ...open.node, '#text': text } : open.node) : text;
    if (hasContent) childOrder.set(value as XmlNode, open.children);
    const parent = stack.at(-1);
    if (!parent) {
      root = { name: tag.local, value };
      return;
    }
    // An element's value is never an array, so an array here is the element repeated.
    const existing = parent.node[tag.local];
    if (existing === undefined) parent.node[tag.local] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else parent.node[tag.local] = [existing, value];
  });
  parser.write(body).close();
  if (!root) throw new Error('no root element');
  const order = new Map<string, string[]>();
  const walk = (value: unknown, segments: (string | number)[]) => {
    if (typeof value !== 'object' || value === null) return;
    const names = childOrder.get(value as XmlNode);
    if (names && names.length > 1) order.set(jsonPath(segments), names);
    for (const [key, child] of Object.entries(value)) {
      if (key.startsWith('@') || key === '#text') continue;
      if (Array.isArray(child)) child.forEach((item, i) => walk(item, [...segments, key, i]));
      else walk(child, [...segments, key]);
    }
  };
  walk(root.value, ['$']);
  return { root: root.name, tree: root.value, order };
}

const prettyOptions = {
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  trimValues: true,
  preserveOrder: true,
};
const prettyParser = new XMLParser(prettyOptions);
const prettyBuilder = new XMLBuilder({ ...prettyOptions, format: true, indentBy: '  ', suppressEmptyNode: true });

function pretty(body: string): string {
  try {
    return String(prettyBuilder.build(prettyParser.parse(body))).trim();
  } catch {
    return body;
  }
}

export const xmlComparer: BodyComparer = {
  name: 'xml',
  accepts: (mediaType) => /^(application|text)\/xml$/.test(mediaType) || mediaType.endsWith('+xml'),
  parse(body): ParsedBody {
    const document = readXml(body);
    return {
      tree: document.tree,
      pretty: pretty(body),
      meta: { 'root()': document.root, 'order()': JSON.stringify([...document.order]) },
    };
  },
  diff(a, b) {
    const out: FieldDiff[] = treeDiff(a.tree, b.tree);
    if (a.meta!['root()'] !== b.meta!['root()'])
      out.unshift({ path: 'root()', kind: 'changed', old: a.meta!['root()'], new: b.meta!['root()'] });
    const orderA = new Map(JSON.parse(a.meta!['order()']!) as [string, string[]][]);
    const orderB = new Map(JSON.parse(b.meta!['order()']!) as [string, string[]][]);
    for (const [path, names] of orderA) {
      const other = orderB.get(path);
      // Only a reordering of the same children: added or removed ones are already field differences.
      if (other && names.join() !== other.join() && [...names].sort().join() === [...other].sort().join()) {
        out.push({ path: `${path}.order()`, kind: 'changed', old: names.join(' '), new: other.join(' ') });
      }
    }
    return out;
  },
};
