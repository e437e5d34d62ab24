/**
 * The Bus contract against the PostgreSQL bus, on a real server this file starts in a temp folder: in the
 * default schema (baton), and again in another one (`bus.schema`), kill tests and all.
 */
import { usePostgres } from '../helpers/postgres.js';
import { tempWorld, testBus } from './bus.contract.js';

const pg = usePostgres();
let n = 0;
for (const schema of [undefined, 'baton_contract'])
  testBus(
    schema ? `postgres, schema ${schema}` : 'postgres',
    async () =>
      tempWorld({
        bus: {
          kind: 'postgres',
          url: pg.url,
          conversation: `contract-${process.pid}-${n++}`,
          ...(schema && { schema }),
        },
      }),
    { atomicStep: true },
  );
