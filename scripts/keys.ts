/**
 * API keys on the configured store (DATA_DIR / DATABASE_URL, as the server):
 *   npm run keys -- create --company 1 [--company 2 | --company 1,2] [--name x]   prints the key once
 *   npm run keys -- revoke <id>
 *   npm run keys -- list
 * Only SHA-256 hashes are stored; a lost key cannot be shown again, make a new one. With a server running on the
 * embedded DuckDB store, the commands go to that server (its DATA_DIR/keys.sock) and take effect at once.
 */
import { parseArgs } from 'node:util';
import { parseOperatorId } from '../src/auth/api-keys.ts';
import { runCli, withKeyStore } from './cli.ts';

const USAGE = 'usage: npm run keys -- create --company <id>[,<id>...] [--name <name>] | revoke <id> | list';

async function main(): Promise<number> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { company: { type: 'string', multiple: true }, name: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  return withKeyStore(async (store, config) => {
    switch (command) {
      case 'create': {
        const ids = (values.company ?? []).flatMap((v) => v.split(',')).map(parseOperatorId);
        if (!ids.length || ids.some((id) => id === undefined)) {
          console.error(`create needs --company <id> (positive integers). ${USAGE}`);
          return 2;
        }
        const companyIds = ids as number[];
        const known = new Set((await store.listCompanies()).map((c) => c.id));
        const unknown = companyIds.filter((id) => !known.has(id));
        if (unknown.length) {
          console.error(`no such company: ${unknown.join(', ')}`);
          return 1;
        }
        const { key, record } = await store.issueApiKey({ name: values.name ?? `key for ${companyIds.join(',')}`, companyIds });
        console.log(`created key ${record.id} (${record.name}) for companies ${record.companyIds.join(', ')}`);
        console.log(`key (shown once, stored hashed): ${key}`);
        console.log(`  curl -H 'X-ApiKey: ${key}' 'http://${config.host}:${config.port}/v1/Reporting/ProfitAndLoss/Flat?CompanyId=${record.companyIds[0]}'`);
        return 0;
      }
      case 'revoke': {
        const id = parseOperatorId(rest[0]);
        if (id === undefined) {
          console.error(`revoke needs a key id. ${USAGE}`);
          return 2;
        }
        if (await store.revokeApiKey(id)) {
          console.log(`revoked key ${id}`);
          return 0;
        }
        console.error(`no active key ${id}`);
        return 1;
      }
      case 'list': {
        const keys = await store.listApiKeys();
        if (!keys.length) console.log('no keys');
        for (const k of keys) {
          const state = k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : 'active';
          console.log(`${k.id}\t${k.name}\tcompanies ${k.companyIds.join(',')}\tcreated ${k.createdAt.toISOString()}\t${state}`);
        }
        return 0;
      }
      default:
        console.error(`unknown command '${command}'. ${USAGE}`);
        return 2;
    }
  });
}

await runCli(main);
