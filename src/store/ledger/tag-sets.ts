/**
 * Tag sets: the distinct set of tracking options a journal line carries, stored once per company and referenced
 * by the pre-aggregates. The key is the sorted canonical option ids joined with ',' ('' = untagged).
 */
import { parseGuid } from '../../scalars/guids.ts';

export function tagSetKey(sortedOptionIds: readonly string[]): string {
  return sortedOptionIds.join(',');
}

export function optionIdsOfKey(key: string): string[] {
  return key === '' ? [] : key.split(',');
}

/**
 * Which tag sets pass a tracking filter: for every group, the set carries one of the group's options
 * (OR within a group, AND across groups). Returns undefined when there is no filter (every tag set passes).
 */
export function resolveTagSets(
  tagSets: ReadonlyArray<{ id: number; optionIds: readonly string[] }>,
  optionGroups: readonly (readonly string[])[],
): number[] | undefined {
  const groups = optionGroups
    .map((g) => new Set(g.map((o) => parseGuid(o) ?? o.toLowerCase())))
    .filter((g) => g.size > 0);
  if (groups.length === 0) return undefined;
  return tagSets.filter((ts) => groups.every((g) => ts.optionIds.some((o) => g.has(o)))).map((ts) => ts.id);
}
