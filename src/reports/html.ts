/**
 * A minimal, safe HTML template: `html\`<td>${value}</td>\`` escapes every interpolated value unless it is
 * already SafeHtml (the result of another `html` template or of `raw` for trusted constants). Arrays are joined.
 * Escaping is escape-html's (Express's own): `& < > " '` as `&amp; &lt; &gt; &quot; &#39;`.
 */
import escapeHtml from 'escape-html';

export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((value, i) => (out += render(value) + strings[i + 1]!));
  return new SafeHtml(out);
}

/**
 * JSON for a `<script type="application/json">` data block: `<`, `>` and `&` escaped so no text can end the element.
 */
export function jsonScriptData(value: unknown): SafeHtml {
  return new SafeHtml(JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026'));
}
