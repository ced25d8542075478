/**
 * Parses a SOAP request with saxes, a strict (well-formedness checking), namespace-aware XML parser. A document type
 * declaration is refused as soon as it is seen, so no DTD is read, no entity is declared or expanded and no external
 * resource is ever opened; references to undeclared entities are errors in saxes.
 *
 * Work is bounded before it grows: saxes resolves each element's namespace prefix by walking the stack of open
 * elements, so a deeply nested body costs the square of its depth (60,000 levels held the event loop for a minute).
 * Parsing stops at the first element deeper than MAX_XML_DEPTH or past MAX_XML_ELEMENTS, so every message costs at
 * most MAX_XML_DEPTH steps per element and a bounded number of elements.
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { appError, AppError } from '../errors/app-error.ts';
import { SOAP11_ENV_NS, SOAP12_ENV_NS, WSA_NAMESPACES } from './namespaces.ts';

export type ParsedEnvelope =
  /** A SOAP 1.2 envelope. `operation` is the local name of the Body's first child element, if any. */
  | { version: 'soap12'; hasBody: boolean; operation?: string; wsaAction?: string }
  /** A SOAP 1.1 envelope. */
  | { version: 'soap11' }
  /** A well-formed document whose root is not a SOAP Envelope (namespace and local name as found). */
  | { version: 'unknown'; rootNamespace: string; rootName: string };

/** Deepest element nesting read (Envelope = 1); a real SOAP message of this service needs fewer than ten levels. */
export const MAX_XML_DEPTH = 64;
/** Most elements read in one message. */
export const MAX_XML_ELEMENTS = 10_000;

function tooComplex(detail: string): AppError {
  return appError('XmlTooComplex', { detail });
}

function malformed(detail: string, cause?: unknown): AppError {
  return appError('XmlMalformed', { detail }, { cause });
}

export function parseEnvelope(text: string): ParsedEnvelope {
  if (text.trim() === '') {
    throw appError('BodyEmptyNoEnvelope');
  }

  const parser = new SaxesParser({ xmlns: true, position: true });
  let depth = 0;
  let root: { uri: string; local: string } | undefined;
  let inHeader = false;
  let hasBody = false;
  let bodyDepth = -1;
  let operation: string | undefined;
  let wsaActionDepth = -1;
  let wsaAction: string | undefined;
  let refusedDoctype = false;
  let elements = 0;

  parser.on('doctype', () => {
    refusedDoctype = true;
    throw malformed('a document type declaration (DOCTYPE) is not allowed.');
  });
  // opentagstart comes before saxes resolves the element's namespace (the step whose cost grows with the depth).
  parser.on('opentagstart', () => {
    if (depth + 1 > MAX_XML_DEPTH) throw tooComplex(`elements nest deeper than ${MAX_XML_DEPTH} levels.`);
    if (++elements > MAX_XML_ELEMENTS) throw tooComplex(`more than ${MAX_XML_ELEMENTS} elements.`);
  });
  parser.on('opentag', (tag: SaxesTagNS) => {
    depth++;
    const uri = tag.uri ?? '';
    if (depth === 1) {
      root = { uri, local: tag.local };
    } else if (depth === 2 && root?.uri === SOAP12_ENV_NS && uri === SOAP12_ENV_NS) {
      if (tag.local === 'Header') inHeader = true;
      if (tag.local === 'Body' && !hasBody) {
        hasBody = true;
        bodyDepth = 2;
      }
    } else if (depth === 3 && bodyDepth === 2 && operation === undefined) {
      operation = tag.local;
    } else if (
      depth === 3 &&
      inHeader &&
      WSA_NAMESPACES.has(uri) &&
      tag.local === 'Action' &&
      wsaAction === undefined
    ) {
      wsaActionDepth = depth;
      wsaAction = '';
    }
  });
  parser.on('text', (chunk: string) => {
    if (wsaActionDepth > 0 && depth === wsaActionDepth) wsaAction += chunk;
  });
  parser.on('closetag', () => {
    if (depth === wsaActionDepth) wsaActionDepth = -1;
    if (depth === 2) {
      inHeader = false;
      bodyDepth = -1;
    }
    depth--;
  });

  try {
    parser.write(text).close();
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (refusedDoctype) throw malformed('a document type declaration (DOCTYPE) is not allowed.', error);
    throw malformed(error instanceof Error ? error.message : String(error), error);
  }

  if (!root) throw malformed('no root element.');
  if (root.local === 'Envelope' && root.uri === SOAP11_ENV_NS) return { version: 'soap11' };
  if (root.local !== 'Envelope' || root.uri !== SOAP12_ENV_NS) {
    return { version: 'unknown', rootNamespace: root.uri, rootName: root.local };
  }
  const trimmedAction = wsaAction?.trim();
  return {
    version: 'soap12',
    hasBody,
    ...(operation !== undefined ? { operation } : {}),
    ...(trimmedAction ? { wsaAction: trimmedAction } : {}),
  };
}
