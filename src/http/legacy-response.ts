/**
 * Installs the legacy writer as `res.json`, so that services hand back DTOs and this module alone decides the
 * bytes: ServiceStack JSON, JSONP wrapping, content types, `Vary: Accept`. Installed before the response
 * validator, which wraps it and so sees every DTO.
 */
import type { RequestHandler } from 'express';
import { toLegacyJson } from './legacy-json.ts';
import { JSONP_CONTENT_TYPE, wrapJsonp } from './jsonp.ts';
import { wireContext } from './wire-context.ts';
import { negotiateFormat } from './format.ts';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export function legacyResponseWriter(): RequestHandler {
  return (req, res, next) => {
    res.json = function writeLegacy(dto: unknown) {
      const wire = wireContext(res);
      res.vary('Accept');
      switch (negotiateFormat(req, wire.extensionFormat)) {
        case 'json': {
          const json = toLegacyJson(dto);
          // Buffers keep the Content-Type exactly as set (Express adds a charset to strings).
          if (wire.callback) {
            res.setHeader('Content-Type', JSONP_CONTENT_TYPE);
            return res.send(Buffer.from(wrapJsonp(wire.callback, json)));
          }
          res.setHeader('Content-Type', JSON_CONTENT_TYPE);
          return res.send(Buffer.from(json));
        }
      }
    };
    next();
  };
}
