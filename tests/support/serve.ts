// `npm run serve` in the source repository: the reference server's command line with the defect and variant
// catalogs, which the package does not ship, so that `--defect <id>` and `--variant <id>` switch one on.
import { serveCommandLine } from '../../server/serve.js';
import { isDefectId, isVariantId, withSwitches } from './switches.js';

await serveCommandLine(process.argv.slice(2), ({ options, defects, variants }) => {
  const unknownDefect = defects.find((id) => !isDefectId(id));
  if (unknownDefect !== undefined) throw new Error(`unknown defect ${JSON.stringify(unknownDefect)} (see tests/defects/)`);
  const unknownVariant = variants.find((id) => !isVariantId(id));
  if (unknownVariant !== undefined) throw new Error(`unknown variant ${JSON.stringify(unknownVariant)} (see tests/variants/)`);
  return withSwitches({ ...options, defects: defects.filter(isDefectId), variants: variants.filter(isVariantId) });
});
