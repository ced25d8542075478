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
import { runCli, usageError } from '../src/ops/cli-failure.ts';
import { withKeyStore } from './cli.ts';
import { ledgerSpan, spanReportUrl } from '../src/ops/ledger-span.ts';

const USAGE = 'usage: npm run keys -- create --company <id>[,<id>...] [--name <name>] | revoke <id> | list';

function parse() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        company: { type: 'string', multiple: true },
        name: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw usageError(`${(error as Error).message}; ${USAGE}`);
  }
}

async function main(): Promise<number> {
  const { positionals, values } = parse();
  const [command, ...rest] = positionals;
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (!command) throw usageError(`name a command (create, revoke or list); ${USAGE}`);
  return withKeyStore(async (store, _config, serviceUrl) => {
    switch (command) {
      case 'create': {
        const ids = (values.company ?? []).flatMap((v) => v.split(',')).map(parseOperatorId);
        if (!ids.length || ids.some((id) => id === undefined))
          throw usageError(`create needs --company <id> (positive integers); ${USAGE}`);
        const companyIds = ids as number[];
        const known = new Set((await store.listCompanies()).map((c) => c.id));
        const unknown = companyIds.filter((id) => !known.has(id));
        if (unknown.length) {
          const others = known.size ? `, or name one of ${[...known].join(', ')}` : '; the store has no company yet';
          console.error(
            `No company ${unknown.join(', ')} in the store: import its ledger first (npm run import -- ` +
              `journal.csv --reference reference.csv)${others}.`,
          );
          return 1;
        }
        const { key, record } = await store.issueApiKey({
          name: values.name ?? `key for ${companyIds.join(',')}`,
          companyIds,
        });
        console.log(`created key ${record.id} (${record.name}) for companies ${record.companyIds.join(', ')}`);
        console.log(`key (shown once, stored hashed): ${key}`);
        // A range that covers the company's figures: the default one (this year to date) may show only zeros.
        for (const companyId of record.companyIds) {
          const span = await ledgerSpan(store, companyId);
          const url = span
            ? spanReportUrl(serviceUrl, companyId, span)
            : `${serviceUrl}/v1/Reporting/ProfitAndLoss/Flat?CompanyId=${companyId}`;
          console.log(`  curl -H 'X-ApiKey: ${key}' '${url}'`);
        }
        return 0;
      }
      case 'revoke': {
        const id = parseOperatorId(rest[0]);
        if (id === undefined) throw usageError(`revoke needs a key id (npm run keys -- list shows them); ${USAGE}`);
        if (await store.revokeApiKey(id)) {
          console.log(`revoked key ${id}`);
          return 0;
        }
        console.error(`No active key ${id}: npm run keys -- list shows the keys and which are revoked.`);
        return 1;
      }
      case 'list': {
        const keys = await store.listApiKeys();
        if (!keys.length) console.log('no keys');
        for (const k of keys) {
          const state = k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : 'active';
          console.log(
            `${k.id}\t${k.name}\tcompanies ${k.companyIds.join(',')}\tcreated ${k.createdAt.toISOString()}\t${state}`,
          );
        }
        return 0;
      }
      default:
        throw usageError(`unknown command '${command}'; ${USAGE}`);
    }
  });
}

await runCli(main);
