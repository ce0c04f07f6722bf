package imageinfo

import "strings"

// aspnetMonitor is the .NET Framework ASP.NET image's command: IIS under
// ServiceMonitor, as in the IIS image, but with nothing in its site. Its
// Dockerfile (dotnet-framework-docker src/aspnet) enables IIS and ASP.NET
// and then empties C:\inetpub\wwwroot (`del /q "C:\inetpub\wwwroot\*"`),
// so IIS's welcome page is gone; images built on it COPY their site in.
var aspnetMonitor = Command{Entrypoint: iisMonitor.Entrypoint}

// frameworkSamples publishes two programs under one repository, told
// apart by tag: aspnetapp (a Web Forms site) and dotnetapp (a console
// program).
const frameworkSamples = "mcr.microsoft.com/dotnet/framework/samples"

// sampleCommand is the default command of a frameworkSamples tag:
// "aspnetapp" and its "aspnetapp-4.8.1-windowsservercore-ltsc2022"-style
// variants are the aspnet image with the sample in its site (samples/
// aspnetapp/Dockerfile: FROM aspnet, WORKDIR /inetpub/wwwroot, COPY the
// built app). The other tags' programs are not known here.
func sampleCommand(tag string) (Command, bool) {
	if tag != "aspnetapp" && !strings.HasPrefix(tag, "aspnetapp-") {
		return Command{}, false
	}
	c := aspnetMonitor
	c.Text = map[string]string{`C:\inetpub\wwwroot\Default.aspx`: aspnetappHome}
	return c, true
}

// aspnetappHome is the sample's home page as ASP.NET renders Default.aspx
// in Site.Master: the emulated IIS serves files as they are and runs no
// ASP.NET, so the file holds the page a client receives. The master
// page's script bundles, view state and the footer's year are left out.
const aspnetappHome = `<!DOCTYPE html>

<html lang="en">
<head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" />
    <title>Home Page - My ASP.NET Application</title>
</head>
<body>
    <div class="navbar navbar-inverse navbar-fixed-top">
        <div class="container">
            <div class="navbar-header">
                <a class="navbar-brand" href="/">Application name</a>
            </div>
            <div class="navbar-collapse collapse">
                <ul class="nav navbar-nav">
                    <li><a href="/">Home</a></li>
                    <li><a href="/About">About</a></li>
                    <li><a href="/Contact">Contact</a></li>
                </ul>
            </div>
        </div>
    </div>
    <div class="container body-content">
    <div class="jumbotron">
        <h1>ASP.NET</h1>
        <p class="lead">ASP.NET is a free web framework for building great Web sites and Web applications using HTML, CSS, and JavaScript.</p>
        <p><a href="http://www.asp.net" class="btn btn-primary btn-lg">Learn more &raquo;</a></p>
    </div>

    <div class="row">
        <div class="col-md-4">
            <h2>Getting started</h2>
        </div>
        <div class="col-md-4">
            <h2>Get more libraries</h2>
        </div>
        <div class="col-md-4">
            <h2>Web Hosting</h2>
        </div>
    </div>
        <hr />
    </div>
</body>
</html>
`
