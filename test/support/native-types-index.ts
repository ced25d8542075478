/** The `/types` index as both the root and a BASE_PATH deployment answer it. */
import { expect } from 'chai';
import type { Express } from 'express';
import request from 'supertest';

/** `/types` under `prefix` ('' at the root) links the three native-types routes under it, and each of them answers. */
export async function expectNativeTypesIndex(app: Express, prefix = ''): Promise<void> {
  const res = await request(app).get(`${prefix}/types`).expect(200);
  expect(res.body).to.deep.equal({
    Metadata: `${prefix}/types/metadata`,
    Csharp: `${prefix}/types/csharp`,
    TypeScript: `${prefix}/types/typescript`,
  });
  for (const path of Object.values(res.body as Record<string, string>)) await request(app).get(path).expect(200);
}
