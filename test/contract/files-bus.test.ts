/** The Bus contract against the files bus (the embedded default), in a temp folder. */
import { tempWorld, testBus } from './bus.contract.js';

testBus('files', async () => tempWorld());
