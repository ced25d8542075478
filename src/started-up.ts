/**
 * The production entry (src/production-entry.ts) runs the server bundle from V8's code cache and takes that cache
 * once the server has started up: it listens and has answered its first request (the first warm-up request); src/main.ts
 * says when. A global, because the entry is not part of the bundle it runs. Started any other way (tsx, tests) nobody
 * listens.
 */
const STARTED_UP = Symbol.for('reporting-service.startedUp');

type Listener = () => void;

export function onStartedUp(listener: Listener): void {
  (globalThis as Record<symbol, Listener | undefined>)[STARTED_UP] = listener;
}

export function signalStartedUp(): void {
  (globalThis as Record<symbol, Listener | undefined>)[STARTED_UP]?.();
}
