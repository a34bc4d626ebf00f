// `make bench`: prints every benchmark's figures with the baseline measured in the same run.
import { run as startupAndModels } from './startup-and-models.ts';

console.log('== start-up and Models API ==');
for (const line of await startupAndModels()) console.log(line);
