/** The Bus contract against the PostgreSQL bus, on a real server this file starts in a temp folder. */
import { usePostgres } from '../helpers/postgres.js';
import { tempWorld, testBus } from './bus.contract.js';

const pg = usePostgres();
let n = 0;
testBus(
  'postgres',
  async () => tempWorld({ bus: { kind: 'postgres', url: pg.url, conversation: `contract-${process.pid}-${n++}` } }),
  { atomicStep: true },
);
