/** JSONP (`cb({...})`, text/javascript): the callback name is one field, the wrapped JSON is compared as JSON. */
import type { BodyComparer } from './comparer.ts';

const CALL = /^\s*([\w.$]+)\s*\(([\s\S]*)\)\s*;?\s*$/;

export const jsonpComparer: BodyComparer = {
  name: 'jsonp',
  accepts: (mediaType) => mediaType === 'text/javascript' || mediaType === 'application/javascript',
  parse(body) {
    const call = CALL.exec(body);
    if (!call) throw new Error('not a JSONP call');
    const tree: unknown = JSON.parse(call[2]!);
    return { tree, meta: { 'callback()': call[1]! }, pretty: `${call[1]}(\n${JSON.stringify(tree, null, 2)}\n)` };
  },
};
