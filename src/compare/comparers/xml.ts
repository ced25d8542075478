/**
 * XML element by element (fast-xml-parser): the root element (the DTO, e.g. `EchoResponse`) is `$`, as in JSON, so one
 * rule (`--ignore '$.ReportModel.BuildTime'`) and one noise field cover both formats; the root's name is compared as
 * the field `root()`. Child elements become fields (`$.ReportModel.Rows.ReportRow[3].Name`), attributes `@name`,
 * repeated elements arrays, text kept as written (no number coercion: `007` stays `007`). Child element order matters
 * to DataContract readers, so a different order of the same children is a difference too (`…/order()`).
 */
import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import { treeDiff } from './tree-diff.ts';
import type { BodyComparer } from './comparer.ts';
import { jsonPath } from './paths.ts';
import type { FieldDiff } from '../types.ts';

const options = { ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false, parseAttributeValue: false, trimValues: true };
const parser = new XMLParser(options);
const orderedParser = new XMLParser({ ...options, preserveOrder: true });
const builder = new XMLBuilder({ ...options, format: true, indentBy: '  ', preserveOrder: true, suppressEmptyNode: true });

type Ordered = Record<string, unknown>[];

/** Child element names in document order, per element path. */
function elementOrder(nodes: Ordered, segments: (string | number)[], out: Map<string, string[]>): void {
  const elements = nodes
    .map((node) => ({ node, name: Object.keys(node).find((k) => k !== ':@') }))
    .filter((e): e is { node: Record<string, unknown>; name: string } => !!e.name && e.name !== '#text' && !e.name.startsWith('?'));
  const names = elements.map((e) => e.name);
  const seen = new Map<string, number>();
  for (const { node, name } of elements) {
    const index = seen.get(name) ?? 0;
    seen.set(name, index + 1);
    // The same path the element has in the tree: an index only where the name repeats.
    const repeated = names.indexOf(name) !== names.lastIndexOf(name);
    elementOrder(node[name] as Ordered, repeated ? [...segments, name, index] : [...segments, name], out);
  }
  if (names.length > 1) out.set(jsonPath(segments), names);
}

function orderOf(body: string, root: string | undefined): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const document = orderedParser.parse(body) as Ordered;
  const rootNode = root && document.find((node) => root in node);
  elementOrder(rootNode ? (rootNode[root] as Ordered) : document, ['$'], out);
  return out;
}

export const xmlComparer: BodyComparer = {
  name: 'xml',
  accepts: (mediaType) => /^(application|text)\/xml$/.test(mediaType) || mediaType.endsWith('+xml'),
  parse(body) {
    const valid = XMLValidator.validate(body);
    if (valid !== true) throw new Error(`not XML: ${valid.err.msg}`);
    const document = parser.parse(body) as Record<string, unknown>;
    const roots = Object.keys(document).filter((name) => !name.startsWith('?'));
    const root = roots.length === 1 ? roots[0]! : undefined;
    return {
      tree: root ? document[root] : document,
      pretty: String(builder.build(orderedParser.parse(body))).trim(),
      meta: { 'root()': root ?? '', 'order()': JSON.stringify([...orderOf(body, root)]) },
    };
  },
  diff(a, b) {
    const out: FieldDiff[] = treeDiff(a.tree, b.tree);
    if (a.meta!['root()'] !== b.meta!['root()']) out.unshift({ path: 'root()', kind: 'changed', old: a.meta!['root()'], new: b.meta!['root()'] });
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
