import Foundation
import Mustache

/// The console's pages: Mustache templates (swift-mustache, which HTML-escapes every `{{value}}`,
/// quotes included, so untrusted text is inert in element content and in quoted attributes).
/// The templates never use the unescaped forms (`{{{…}}}`, `{{&…}}`); `ConsoleTemplateTests`
/// checks both. Every page shares `header` (title, navigation, the CSRF token for scripts) and
/// `footer`; scripts are files under `/static/`, never inline (the Content-Security-Policy forbids
/// inline scripts).
public struct ConsoleTemplates: Sendable {
    let library: MustacheLibrary

    public init() {
        var library = MustacheLibrary()
        for (name, text) in Self.sources {
            // The sources are constants of this file: a parse error is a programming error, found
            // by every test that renders a page.
            do {
                try library.register(text, named: name)
            } catch {
                preconditionFailure("console template \(name): \(error)")
            }
        }
        self.library = library
    }

    /// Renders `page` with `context`, or a plain error line if the page does not exist.
    public func render(_ page: String, _ context: [String: Any]) -> String {
        library.render(context, withTemplate: page) ?? "no template \(page)"
    }

    /// Every template's source, by name (the tests read them).
    public static let sources: [String: String] = [
        "header": header,
        "footer": footer,
        "signin": signin,
        "modems": modems,
        "modem": modem,
        "bind": bind,
        "batch": batch,
        "list": list,
        "confirm": confirm,
        "message": message,
        "token": token,
    ]

    static let header = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="csrf-token" content="{{csrf}}">
        <title>{{title}} · nbgw</title>
        <link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
        <link rel="stylesheet" href="/static/console.css">
        <script src="/static/console.js" defer></script>
        </head>
        <body data-page="{{page}}">
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
        <span class="brand">nbgw</span>
        {{#operator}}
        <nav aria-label="Main">
        <ul>
        {{#nav}}<li><a href="{{href}}"{{#current}} aria-current="page"{{/current}}>{{label}}</a></li>{{/nav}}
        </ul>
        </nav>
        <form class="signout" method="post" action="/signout">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <span class="who">{{operator}} ({{role}})</span>
        <button type="submit">Sign out</button>
        </form>
        {{/operator}}
        </header>
        <main id="main" tabindex="-1">
        <h1>{{title}}</h1>
        {{#flash}}<p class="flash {{kind}}" role="status">{{text}}</p>{{/flash}}
        """

    static let footer = """
        </main>
        <footer class="bottom"><span>nbgw {{version}}</span></footer>
        </body>
        </html>
        """

    static let signin = """
        {{>header}}
        <form class="card" method="post" action="/signin">
        <input type="hidden" name="csrf" value="{{signinToken}}">
        <p><label for="name">Operator name</label>
        <input id="name" name="name" autocomplete="username" required autofocus value="{{name}}"></p>
        <p><label for="password">Password</label>
        <input id="password" name="password" type="password" autocomplete="current-password" required></p>
        <p><button type="submit">Sign in</button></p>
        </form>
        <p class="hint">Operators are added on the gateway: <code>nbgw operators add NAME --role operator</code>.</p>
        {{>footer}}
        """

    static let modems = """
        {{>header}}
        <p class="hint" id="modems-status" role="status" aria-live="polite">{{count}} modules; updates by itself.</p>
        <div class="scroll">
        <table id="modems">
        <caption class="visually-hidden">Modems the daemon supervises</caption>
        <thead><tr><th scope="col">State</th><th scope="col">Reason</th><th scope="col">IMEI</th><th scope="col">Model</th>
        <th scope="col">Port</th><th scope="col">Signal</th><th scope="col">Device</th></tr></thead>
        <tbody id="modems-body">
        {{#modems}}<tr data-port="{{port}}"><td data-label="State"><span class="state state-{{state}}">{{state}}</span></td>
        <td data-label="Reason">{{reason}}</td>
        <td data-label="IMEI">{{#href}}<a href="{{href}}">{{imei}}</a>{{/href}}{{^href}}{{imei}}{{/href}}</td>
        <td data-label="Model">{{model}}</td><td data-label="Port">{{port}}</td><td data-label="Signal">{{signal}}</td>
        <td data-label="Device">{{deviceId}}</td></tr>
        {{/modems}}
        </tbody>
        </table>
        </div>
        <section aria-labelledby="labels-h"><h2 id="labels-h">Labels</h2>
        {{#hasUnprinted}}<form method="post" action="/labels/print">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <p id="labels-unprinted">{{unprinted}} registered modules have no printed label yet.</p>
        <button type="submit">Print their labels (PDF)</button></form>{{/hasUnprinted}}
        {{^hasUnprinted}}<p class="hint" id="labels-unprinted">Every registered module has a printed label.</p>
        {{/hasUnprinted}}
        </section>
        {{>footer}}
        """

    static let modem = """
        {{>header}}
        <section aria-labelledby="facts-h"><h2 id="facts-h">Facts</h2>
        <dl class="facts">{{#facts}}<dt>{{name}}</dt><dd>{{value}}</dd>{{/facts}}</dl></section>
        <section aria-labelledby="reg-h"><h2 id="reg-h">Registration</h2>
        <dl class="facts">{{#registration}}<dt>{{name}}</dt><dd>{{value}}</dd>{{/registration}}</dl></section>
        <section aria-labelledby="label-h"><h2 id="label-h">Label</h2>
        {{#label}}<p><span class="qr-text">{{payload}}</span></p>
        {{#image}}<p><img class="label" src="{{image}}" alt="Pairing label of {{deviceId}}"></p>{{/image}}
        {{#pdf}}<p><a href="{{pdf}}">Label (PDF)</a></p>{{/pdf}}
        {{/label}}
        {{^label}}<p class="hint">Not registered yet: no label.</p>{{/label}}
        </section>
        {{#actions}}
        <section aria-labelledby="act-h"><h2 id="act-h">Actions</h2>
        <p class="hint">Through the daemon's control socket; each is audited with your name and address.</p>
        <div class="actions">
        {{#list}}<form method="post" action="{{path}}">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="action" value="{{name}}">
        <button type="submit">{{label}}</button></form>{{/list}}
        </div></section>
        {{/actions}}
        <section aria-labelledby="audit-h"><h2 id="audit-h">Audit trail</h2>
        <div class="scroll"><table><thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Who</th>
        <th scope="col">Code</th><th scope="col">Detail</th></tr></thead><tbody>
        {{#audit}}<tr><td>{{at}}</td><td>{{event}}</td><td>{{who}}</td><td>{{code}}</td><td>{{detail}}</td></tr>{{/audit}}
        </tbody></table></div></section>
        {{>footer}}
        """

    static let bind = """
        {{>header}}
        <form id="bind-form" class="card" method="post" action="/bind">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <fieldset><legend>Where the devices go</legend>
        <p><label for="account">Account</label>
        <select id="account" name="account">{{#accounts}}<option{{#selected}} selected{{/selected}}>{{name}}</option>{{/accounts}}</select></p>
        <p><label for="home">Home</label>
        <select id="home" name="home">{{#homes}}<option data-owner="{{owner}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/homes}}</select></p>
        <p><label for="token">Pairing token (optional)</label>
        <input id="token" name="token" autocomplete="off" value="{{token}}"></p>
        </fieldset>
        <p><label for="qr">Scan (a scanner types here, then Enter)</label>
        <input id="qr" name="qr" autocomplete="off" autofocus required inputmode="none" spellcheck="false"></p>
        <p><button type="submit">Bind</button></p>
        </form>
        <div id="result" class="result{{#result}} result-{{kind}}{{/result}}" role="status" aria-live="assertive" tabindex="-1">{{#result}}
        <p class="result-status">{{headline}}</p><p class="result-code">{{code}}</p><p class="result-message">{{message}}</p>
        {{/result}}</div>
        <section class="card" aria-labelledby="camera-h"><h2 id="camera-h">Camera</h2>
        <p class="hint">Frames go to the gateway, which reads the code (no QR library in the browser).</p>
        <p><button type="button" id="camera-start">Start camera</button>
        <button type="button" id="camera-stop" hidden>Stop camera</button></p>
        <video id="camera" playsinline muted hidden></video>
        <canvas id="frame" hidden></canvas>
        <p id="camera-status" class="hint" role="status" aria-live="polite"></p>
        </section>
        <ol id="history" class="history" aria-label="Scans this session"></ol>
        {{>footer}}
        """

    static let batch = """
        {{>header}}
        <form id="batch-form" class="card" method="post" action="/batch">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <p class="hint">A CSV with a <code>qr</code> column, and <code>account</code> and <code>home</code> columns or the defaults below
        (the rules of <code>nbgw bind --csv</code>). {{limits}}</p>
        <p><label for="file">CSV file</label><input id="file" name="file" type="file" accept=".csv,text/csv" required></p>
        <p><label for="account">Default account</label>
        <select id="account" name="account"><option value="">(from the file)</option>{{#accounts}}<option>{{name}}</option>{{/accounts}}</select></p>
        <p><label for="home">Default home</label>
        <select id="home" name="home"><option value="">(from the file)</option>{{#homes}}<option>{{name}}</option>{{/homes}}</select></p>
        <p><button type="submit" id="batch-upload">Upload and bind</button></p>
        </form>
        <section class="card" aria-labelledby="progress-h" id="batch-card" data-running="{{running}}"><h2 id="progress-h">Progress</h2>
        <p><label for="batch-progress">Rows</label> <progress id="batch-progress" max="100" value="0"></progress></p>
        <p id="batch-status" role="status" aria-live="polite">{{status}}</p>
        <p id="batch-report" hidden><a id="batch-report-link" href="#">Download the report (CSV)</a></p>
        </section>
        <section aria-labelledby="jobs-h"><h2 id="jobs-h">Batches</h2>
        <div class="scroll"><table><thead><tr><th scope="col">Batch</th><th scope="col">File</th><th scope="col">By</th>
        <th scope="col">Started</th><th scope="col">State</th><th scope="col">Rows</th>
        <th scope="col">Bound</th><th scope="col">Unchanged</th><th scope="col">Failed</th><th scope="col">Report</th></tr></thead>
        <tbody>{{#jobs}}<tr><td>{{id}}</td><td>{{name}}</td><td>{{operator}}</td><td>{{started}}</td><td>{{state}}
        {{#resume}}<form class="inline" method="post" action="{{resume}}"><input type="hidden" name="csrf" value="{{csrf}}">
        <button type="submit">Resume</button></form>{{/resume}}</td><td>{{rows}}</td><td>{{bound}}</td><td>{{unchanged}}</td>
        <td>{{failed}}</td><td>{{#report}}<a href="{{report}}">report</a>{{/report}}</td></tr>{{/jobs}}</tbody></table></div>
        </section>
        {{>footer}}
        """

    static let list = """
        {{>header}}
        <form class="search" method="get" action="{{path}}" role="search">
        <label for="q">Search {{noun}}</label>
        <input id="q" name="q" type="search" value="{{query}}">
        <button type="submit">Search</button>
        </form>
        {{#create}}<form class="card" method="post" action="{{action}}">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <p><label for="create-home">{{label}}</label>
        <select id="create-home" name="home">{{#homes}}<option>{{name}}</option>{{/homes}}</select>
        <button type="submit">{{button}}</button></p></form>{{/create}}
        <div class="scroll">
        <table id="list">
        <thead><tr>{{#columns}}<th scope="col">{{.}}</th>{{/columns}}</tr></thead>
        <tbody>
        {{#rows}}<tr>{{#cells}}<td>{{#href}}<a href="{{href}}">{{text}}</a>{{/href}}{{^href}}{{text}}{{/href}}</td>{{/cells}}</tr>
        {{/rows}}
        {{^rows}}<tr><td colspan="{{width}}">Nothing found.</td></tr>{{/rows}}
        </tbody>
        </table>
        </div>
        <nav class="pages" aria-label="Pages">
        {{#previous}}<a href="{{previous}}" rel="prev">Previous</a>{{/previous}}
        <span>{{range}}</span>
        {{#next}}<a href="{{next}}" rel="next">Next</a>{{/next}}
        </nav>
        {{>footer}}
        """

    static let confirm = """
        {{>header}}
        <div class="card">
        <p class="confirm-question">{{question}}</p>
        <dl class="facts">{{#facts}}<dt>{{name}}</dt><dd>{{value}}</dd>{{/facts}}</dl>
        <form method="post" action="{{action}}">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <button type="submit" class="danger" id="confirm">{{button}}</button>
        <a href="{{cancel}}">Cancel</a>
        </form>
        </div>
        {{>footer}}
        """

    static let message = """
        {{>header}}
        <div id="result" class="result result-{{kind}}" role="status" tabindex="-1">
        <p class="result-status">{{headline}}</p>
        {{#code}}<p class="result-code">{{code}}</p>{{/code}}
        <p class="result-message">{{message}}</p>
        </div>
        {{#back}}<p><a href="{{back}}">Back</a></p>{{/back}}
        {{>footer}}
        """

    static let token = """
        {{>header}}
        <dl class="facts">{{#facts}}<dt>{{name}}</dt><dd>{{value}}</dd>{{/facts}}</dl>
        <h2>Devices bound with it</h2>
        <ul>{{#devices}}<li><a href="{{href}}">{{deviceId}}</a> → {{account}} / {{home}}</li>{{/devices}}{{^devices}}<li>None.</li>{{/devices}}</ul>
        <h2>Refused binds</h2>
        <ul>{{#failures}}<li>{{at}} {{deviceId}}: {{code}} {{message}}</li>{{/failures}}{{^failures}}<li>None.</li>{{/failures}}</ul>
        {{>footer}}
        """
}
