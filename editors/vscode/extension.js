// Starts `dgl lsp` for .dgl files: diagnostics (dgl check's syntax errors), completion and
// hover. The binary is the setting `dgl.path` (default: `dgl` on PATH).
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("dgl").get("path") || "dgl";
  const server = { command, args: ["lsp"] };
  client = new LanguageClient(
    "dgl",
    "DGL language server",
    { run: server, debug: server },
    { documentSelector: [{ language: "dgl" }] }
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
