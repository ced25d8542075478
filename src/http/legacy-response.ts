/**
 * Installs the legacy writer as `res.json`, so that services hand back DTOs and this module alone decides the
 * bytes: the negotiated format, JSONP wrapping, content types, `Vary: Accept`. Installed before the response
 * validator, which wraps it and so sees every DTO.
 */
import type { RequestHandler } from 'express';
import { DTO_FORMATS, dtoWriters } from './dto-writers.ts';
import { negotiateFormat } from './format.ts';
import { JSONP_CONTENT_TYPE, wrapJsonp } from './jsonp.ts';
import { toLegacyJson } from './legacy-json.ts';
import { wireContext } from './wire-context.ts';
import { applyJsConfig, parseJsConfig } from './jsconfig.ts';
import { Keywords, keywordValue } from './keywords.ts';

export { JSON_CONTENT_TYPE } from './dto-writers.ts';

export function legacyResponseWriter(): RequestHandler {
  return (req, res, next) => {
    res.json = function writeLegacy(dto: unknown) {
      const wire = wireContext(res);
      res.vary('Accept');
      // Buffers keep the Content-Type exactly as set (Express adds a charset to strings).
      if (wire.callback) {
        res.setHeader('Content-Type', JSONP_CONTENT_TYPE);
        return res.send(Buffer.from(wrapJsonp(wire.callback, toLegacyJson(dto))));
      }
      const format = negotiateFormat(req, wire.extensionFormat, DTO_FORMATS, 'json');
      const writer = dtoWriters[format]!;
      // ?jsconfig= shapes the service's own JSON answer only (not JSONP above, not errors raised before the service).
      const jsconfig = format === 'json' && wire.serviceStarted ? parseJsConfig(keywordValue(req.query as Record<string, unknown>, Keywords.jsconfig)) : undefined;
      res.setHeader('Content-Type', writer.contentType);
      return res.send(Buffer.from(writer.write(jsconfig ? applyJsConfig(dto, jsconfig) : dto, { dtoName: wire.dtoName, status: res.statusCode })));
    };
    next();
  };
}
