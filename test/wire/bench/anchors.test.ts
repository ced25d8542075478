/** The echo benchmark's anchor servers: each answers the app's bytes and is bounded in time as the service is. */
import { expect } from 'chai';
import { ANCHORS, ECHO_ROUTES, startAnchor, type AnchorServer } from '../../../scripts/bench/anchors.ts';
import { SERVER_TIME_LIMITS } from '../../../src/server.ts';

const ANSWER = {
  body: '{"Message":"hello"}',
  headers: { 'content-type': 'application/json; charset=utf-8', vary: 'Accept' },
};

describe('bench anchors', () => {
  for (const anchor of ANCHORS) {
    describe(anchor, () => {
      let running: AnchorServer;
      before(async () => (running = await startAnchor(anchor, ANSWER)));
      after(() => running.close());

      it("has the service's headers and request time-outs", () => {
        expect(running.server.headersTimeout).to.equal(SERVER_TIME_LIMITS.headersTimeout);
        expect(running.server.requestTimeout).to.equal(SERVER_TIME_LIMITS.requestTimeout);
      });

      it("answers both echoes with the app's body and headers", async () => {
        for (const { method, path } of ECHO_ROUTES) {
          const body = method === 'POST' ? '{"Message":"hello"}' : undefined;
          const res = await fetch(running.url + path, {
            method,
            body,
            headers: body ? { 'content-type': 'application/json' } : {},
          });
          expect(res.status, `${method} ${path}`).to.equal(200);
          expect(await res.text()).to.equal(ANSWER.body);
          expect(res.headers.get('vary')).to.equal('Accept');
          expect(res.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
        }
      });
    });
  }
});
