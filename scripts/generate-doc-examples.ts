/** `npm run docs:examples`: copies each docs/examples file into the doc blocks that name it. */
import { writeExamples } from './doc-examples.ts';

const written = writeExamples();
console.log(written.length === 0 ? 'every example is up to date' : `wrote ${written.join(', ')}`);
