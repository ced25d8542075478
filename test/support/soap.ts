import express, { type Express } from 'express';
import { SaxesParser, type SaxesTagNS } from 'saxes';
import type { Server } from 'node:http';
import { listen } from '../../src/server.ts';
import { mountSoap12 } from '../../src/soap/mount-soap12.ts';

export const SOAP12_NS = 'http://www.w3.org/2003/05/soap-envelope';
export const SOAP11_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
export const TYPES_NS = 'http://schemas.servicestack.net/types';

export async function buildApp(bodyLimitBytes = 1_000_000): Promise<Express> {
  const app = express();
  await (await mountSoap12(app, { bodyLimitBytes })).describe();
  // The composition root installs its 404 after mountSoap12 resolves; do the same so ordering is exercised.
  app.use((_req, res) => {
    res.status(404).type('text/plain').send('404');
  });
  return app;
}

/** The SOAP app listening on a loopback port, for node-soap's client (which fetches the WSDL itself). */
export async function listenSoapApp(): Promise<{ app: Express; server: Server; base: string }> {
  const app = await buildApp();
  const { server, url } = await listen(app, 0, '127.0.0.1');
  return { app, server, base: url };
}

export function soap12Envelope(body: string, header = ''): string {
  return (
    `<?xml version="1.0" encoding="utf-8"?>` +
    `<soap:Envelope xmlns:soap="${SOAP12_NS}">${header ? `<soap:Header>${header}</soap:Header>` : ''}` +
    `<soap:Body>${body}</soap:Body></soap:Envelope>`
  );
}

export interface ParsedFault {
  envelopeNs: string;
  code?: string;
  subcode?: string;
  reason?: string;
  reasonLang?: string;
  upgradeQNameNs?: string;
  faultcode11?: string;
}

/** Parses a fault strictly (namespace-aware) and resolves the QName in env:Value / faultcode. */
export function parseFault(xml: string): ParsedFault {
  const parser = new SaxesParser({ xmlns: true });
  const stack: SaxesTagNS[] = [];
  const out: ParsedFault = { envelopeNs: '' };
  let text = '';
  const resolvePrefix = (prefix: string): string => {
    for (let i = stack.length - 1; i >= 0; i--) {
      const uri = stack[i]?.ns[prefix];
      if (uri !== undefined) return uri;
    }
    return '';
  };
  parser.on('opentag', (tag: SaxesTagNS) => {
    stack.push(tag);
    text = '';
    if (stack.length === 1) out.envelopeNs = tag.uri;
    if (tag.local === 'SupportedEnvelope') {
      const qname = String((tag.attributes.qname as { value: string }).value);
      const [prefix = ''] = qname.split(':');
      out.upgradeQNameNs = resolvePrefix(prefix);
    }
    if (tag.local === 'Text') {
      const lang = tag.attributes['xml:lang'] as { value: string } | undefined;
      out.reasonLang = lang?.value;
    }
  });
  parser.on('text', (t: string) => {
    text += t;
  });
  parser.on('closetag', () => {
    const names = stack.map((t) => t.local).join('/');
    const resolveQName = (qname: string) => {
      const [prefix, local] = qname.trim().split(':');
      return `{${resolvePrefix(prefix ?? '')}}${local}`;
    };
    if (names.endsWith('Fault/Code/Value')) out.code = resolveQName(text);
    if (names.endsWith('Code/Subcode/Value')) out.subcode = resolveQName(text);
    if (names.endsWith('Fault/Reason/Text')) out.reason = text;
    if (names.endsWith('Fault/faultcode')) out.faultcode11 = resolveQName(text);
    if (names.endsWith('Fault/faultstring')) out.reason = text;
    stack.pop();
  });
  parser.write(xml).close();
  return out;
}
