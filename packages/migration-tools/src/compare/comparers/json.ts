import type { BodyComparer } from './comparer.ts';

export const jsonComparer: BodyComparer = {
  name: 'json',
  accepts: (mediaType) => mediaType === 'application/json' || mediaType.endsWith('+json'),
  parse(body) {
    const tree: unknown = JSON.parse(body);
    return { tree, pretty: JSON.stringify(tree, null, 2) };
  },
};
