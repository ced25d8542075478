/**
 * The legacy binder: turns what a ServiceStack client sent (case-insensitive names, JSV-style query values,
 * loosely typed JSON) into canonical typed values that the request validator then checks against openapi/.
 * Every value that cannot be read becomes one field error named as the client named it.
 */
import type { FieldKind, FieldSpec, ScalarKind } from '../contract/binding-plan.ts';
import type { FieldError } from '../errors/app-error.ts';
import { canonicalLegacyDateInput, isLegacyInstantOutOfRange } from '../scalars/dates.ts';
import { legacyBooleanText, parseLegacyBoolean } from '../scalars/booleans.ts';
import { parseGuid } from '../scalars/guids.ts';
import { parseLegacyInt32, parseLegacyListInt32, splitLegacyList } from './legacy-scalars.ts';

export interface BoundFields {
  /** Canonical field name → typed value. */
  values: Record<string, unknown>;
  /** Canonical field name → the name the client used (for error messages). */
  sentNames: Record<string, string>;
  errors: FieldError[];
}

const INVALID = Symbol('invalid');
type Parsed = unknown | typeof INVALID;

/** Longest value quoted back in an error message. */
const MAX_DESCRIBED_CHARS = 200;

/** The value as the client sent it, for an error message: bounded in length, and safe for any nesting depth. */
function describe(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : JSON.stringify(value);
  } catch {
    text = Array.isArray(value) ? '[…]' : '{…}'; // nested too deeply for the stack: RangeError
  }
  return text.length > MAX_DESCRIBED_CHARS ? `${text.slice(0, MAX_DESCRIBED_CHARS)}…` : text;
}

/** A JSON value's own text (4.5 bound `"OrderBy":[1]` as "[1]"); undefined when nested too deeply to write. */
function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

function invalid(sentName: string, value: unknown): FieldError {
  return {
    errorCode: 'SerializationException',
    fieldName: sentName,
    message: `'${describe(value)}' is an Invalid value for '${sentName}'`,
  };
}

/**
 * One value as ServiceStack 4.5 converted it. Text (query, form, JSV, XML) follows the JSV binder's rules; a JSON value
 * is converted where 4.5 converted it (`1`/`0` → boolean, `5`/`true` → "5"/"true", `"7"` → 7, any other JSON value →
 * its JSON text for a string field) and is invalid where 4.5 silently dropped it (a deliberate deviation: a 400).
 */
function parseScalar(kind: ScalarKind, value: unknown, inList = false): Parsed {
  switch (kind.kind) {
    case 'string':
      // A `/Date(ms)/` text is written back as a date (JSV, jsconfig's DateHandler): one no Date holds is refused here.
      if (typeof value === 'string') return isLegacyInstantOutOfRange(value) ? INVALID : value;
      return value !== null && value !== undefined ? (jsonText(value) ?? INVALID) : INVALID;
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (typeof value === 'number') return value === 1 ? true : value === 0 ? false : INVALID;
      return typeof value === 'string' ? (parseLegacyBoolean(value) ?? INVALID) : INVALID;
    case 'integer': {
      const parse = inList ? parseLegacyListInt32 : parseLegacyInt32;
      if (typeof value === 'number') return Number.isInteger(value) ? (parse(String(value)) ?? INVALID) : INVALID;
      return typeof value === 'string' ? (parse(value) ?? INVALID) : INVALID;
    }
    case 'date':
      return typeof value === 'string' ? (canonicalLegacyDateInput(value) ?? INVALID) : INVALID;
    case 'guid':
      // A JSV list item may be double-quoted: `Filters="0a1b…"` bound in 4.5.
      return typeof value === 'string' ? (parseGuid(value.trim().replace(/^"(.*)"$/s, '$1')) ?? INVALID) : INVALID;
    case 'enum': {
      if (typeof value !== 'string') return INVALID;
      // Case-insensitive like .NET enum parsing; an unknown value is left for the validator to name.
      return kind.values.find((v) => v.toLowerCase() === value.trim().toLowerCase()) ?? value;
    }
  }
}

/** Binder limits: the most items one array field may carry (MAX_ARRAY_ITEMS). */
export interface BindingLimits {
  maxArrayItems: number;
}

const TOO_MANY = Symbol('too many');

function parseField(type: FieldKind, value: unknown, limits: BindingLimits): Parsed | typeof TOO_MANY {
  if (type.kind !== 'array') return parseScalar(type, value);
  // 4.5 read one JSON value as a one-item list (`101` → [101]) and a string as a JSV list (`"1,2"` → [1,2]).
  const items =
    typeof value === 'string'
      ? splitLegacyList(value)
      : Array.isArray(value)
        ? value
        : value !== null && typeof value !== 'object'
          ? [value]
          : undefined;
  if (!items) return INVALID;
  if (items.length > limits.maxArrayItems) return TOO_MANY;
  const parsed = items.map((item) => parseScalar(type.items, item, true));
  return parsed.includes(INVALID) ? INVALID : parsed;
}

/** A text field's empty string is a value only in a document body (JSON, XML, JSV); elsewhere it leaves the default. */
function isAbsent(value: unknown, spec: FieldSpec, emptyTextIsValue: boolean): boolean {
  if (value === undefined || value === null) return true;
  return value === '' && !(emptyTextIsValue && (spec.type.kind === 'string' || spec.type.kind === 'enum'));
}

/**
 * Binds [name as sent, value, plan key] entries in the order given; a later entry for the same field wins (body after
 * query).
 */
function bind(
  entries: [string, unknown, string?][],
  plan: Map<string, FieldSpec>,
  limits: BindingLimits,
  into?: BoundFields,
  emptyTextIsValue = false,
): BoundFields {
  const bound: BoundFields = into ?? { values: {}, sentNames: {}, errors: [] };
  for (const [sentName, value, key = sentName.toLowerCase()] of entries) {
    const spec = plan.get(key);
    if (!spec || isAbsent(value, spec, emptyTextIsValue)) continue;
    const parsed = parseField(spec.type, value, limits);
    if (parsed === TOO_MANY) {
      bound.errors.push({
        errorCode: 'SerializationException',
        fieldName: sentName,
        message: `'${sentName}' has more than ${limits.maxArrayItems} items`,
      });
      continue;
    }
    if (parsed === INVALID) {
      // 4.5 names the part of a boolean it read: `yes` for `yes,no`.
      bound.errors.push(
        invalid(sentName, spec.type.kind === 'boolean' && typeof value === 'string' ? legacyBooleanText(value) : value),
      );
      continue;
    }
    bound.values[spec.name] = parsed;
    bound.sentNames[spec.name] = sentName;
  }
  return bound;
}

const BRACKETED_KEY = /^(.+)\[(\d*)\]$/;

/**
 * A name with an index (`Locations[7]`, `CompanyId[100000000]`) whose base names a field of the operation: an index
 * at or above the array limit is refused (a field error naming it as sent), whatever the body type; the index is read
 * from the name's text only, so nothing is ever sized by it. Unknown names are ignored, as 4.5 ignored them.
 */
function indexBeyondLimit(key: string, plan: Map<string, FieldSpec>, limits: BindingLimits): FieldError | undefined {
  const match = BRACKETED_KEY.exec(key);
  if (!match || match[2] === '' || !plan.has(match[1]!.toLowerCase())) return undefined;
  const digits = match[2]!.replace(/^0+(?=\d)/, '');
  if (digits.length <= String(limits.maxArrayItems).length && Number(digits) < limits.maxArrayItems) return undefined;
  const shown = key.length > MAX_DESCRIBED_CHARS ? `${key.slice(0, MAX_DESCRIBED_CHARS)}…` : key;
  return {
    errorCode: 'SerializationException',
    fieldName: shown,
    message: `'${shown}' has an index above the limit of ${limits.maxArrayItems} items`,
  };
}

/**
 * The field a query or form key names: its own name, or for an array field also `Name[]` and `Name[0]` (axios' and
 * qs' forms, which generated clients send; the original ignored them as unknown keys, so no client relied on that).
 */
function formFieldKey(key: string, plan: Map<string, FieldSpec>): string {
  const lower = key.toLowerCase();
  const base = BRACKETED_KEY.exec(lower)?.[1];
  return base !== undefined && !plan.has(lower) && plan.get(base)?.type.kind === 'array' ? base : lower;
}

type FormValues = Record<string, string | string[] | undefined>;

/**
 * Query strings and form bodies (urlencoded or multipart): repeated keys, and keys that differ only by case or by an
 * array's bracket suffix, are joined with `,` as ASP.NET's NameValueCollection did, so `Locations=1&locations=2` and
 * `Locations[]=1&Locations[]=2` read as `1,2`.
 */
export function bindQuery(
  query: FormValues,
  plan: Map<string, FieldSpec>,
  limits: BindingLimits,
  into?: BoundFields,
): BoundFields {
  const merged = new Map<string, [string, string, string]>();
  const refused: FieldError[] = [];
  for (const [key, raw] of Object.entries(query)) {
    if (raw === undefined) continue;
    const beyond = indexBeyondLimit(key, plan, limits);
    if (beyond) {
      refused.push(beyond);
      continue;
    }
    const text = Array.isArray(raw) ? raw.filter((v) => v !== '').join(',') : raw;
    const lower = formFieldKey(key, plan);
    const previous = merged.get(lower);
    merged.set(
      lower,
      previous ? [previous[0], [previous[1], text].filter(Boolean).join(','), lower] : [key, text, lower],
    );
  }
  const bound = bind([...merged.values()], plan, limits, into);
  bound.errors.push(...refused);
  return bound;
}

/** Each operation's path fields by lower-case name, made on its first request. */
const pathPlans = new WeakMap<readonly FieldSpec[], Map<string, FieldSpec>>();

/** Path variables (echo's Message, the report link's Token), read as text values are; an empty one is absent. */
export function bindPath(
  values: Record<string, string>,
  fields: readonly FieldSpec[],
  limits: BindingLimits,
): BoundFields {
  let plan = pathPlans.get(fields);
  if (!plan) pathPlans.set(fields, (plan = new Map(fields.map((field) => [field.name.toLowerCase(), field]))));
  return bind(Object.entries(values), plan, limits);
}

/** JSON bodies: property names are case-insensitive; query values fill only what the body left out. */
export function bindBody(
  body: Record<string, unknown>,
  plan: Map<string, FieldSpec>,
  fromQuery: BoundFields | undefined,
  limits: BindingLimits,
  fromDocument = false,
): BoundFields {
  const entries = Object.entries(body);
  const bound = bind(entries, plan, limits, fromQuery, fromDocument);
  for (const [key] of entries) {
    const beyond = indexBeyondLimit(key, plan, limits);
    if (beyond) bound.errors.push(beyond);
  }
  return bound;
}
