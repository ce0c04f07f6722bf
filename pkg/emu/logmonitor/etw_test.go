package logmonitor

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/etw"
	"github.com/winkube/winkube/pkg/emu/program"
)

var (
	iisLog = etw.Provider{Name: "Microsoft-Windows-IIS-Logging", GUID: "{7E8AD27F-B271-4EA2-A783-A47BDE29143B}"}
	named  = etw.Provider{Name: "Named-Provider", GUID: "{0F0E0D0C-0B0A-0908-0706-050403020100}", Decoding: etw.DecodingXMLFile}
)

// etwApp writes events as an emulated program does: one the source
// wants, one above its level, one of a provider it does not enable, one
// of the provider it named.
func etwApp(_ context.Context, p *program.Proc) int {
	t := p.Sys.ETW()
	now := p.Sys.Clock.Now()
	t.Write(etw.Event{Provider: iisLog, Time: now, ID: 6200, Level: 4, Data: []etw.Property{
		{Name: "csmethod", Value: "GET"}, {Name: "csuristem", Value: `/a"b`}, {Name: "scstatus", Value: "200"}}})
	t.Write(etw.Event{Provider: iisLog, Time: now, ID: 6201, Level: 5})
	t.Write(etw.Event{Provider: etw.Provider{Name: "Other", GUID: "{99999999-9999-9999-9999-999999999999}"}, Time: now, ID: 1, Level: 1})
	t.Write(etw.Event{Provider: named, Time: now, ID: 7, Level: 2, Keyword: 0x8000000000000000})
	return 0
}

// An ETW source prints the events of the providers it enables, up to
// their level, in LogMonitor's ETW JSON (EtwJsonFormat); a provider
// named without a GUID is found among those registered.
func TestETWSource(t *testing.T) {
	sys := newSys(t, map[string]string{`C:\LogMonitor\LogMonitorConfig.json`: `{"LogConfig": {"logFormat": "json", "sources": [
		{"type": "ETW", "eventFormatMultiLine": false, "providers": [
			{"providerName": "Microsoft-Windows-IIS-Logging", "providerGuid": "7E8AD27F-B271-4EA2-A783-A47BDE29143B", "level": "Information"},
			{"providerName": "named-provider"}]}]}}`})
	sys.Programs["etwapp"] = etwApp
	sys.ETW().Register(named)
	out, code := runLM(t, sys, "etwapp")
	want := `{"Source":"ETW","LogEntry":{"Time":"2024-03-05T14:07:00.000Z","ProviderName":"Microsoft-Windows-IIS-Logging","ProviderId":"{7E8AD27F-B271-4EA2-A783-A47BDE29143B}","DecodingSource":"DecodingSourceXMLFile","Execution":{"ProcessId":0,"ThreadId":0},"Level":"Information","Keyword":"0x0","EventId":"6200","EventData":{"csmethod":"GET","csuristem":"/a\"b","scstatus":200}},"SchemaVersion":"1.0.0"}` + "\r\n" +
		`{"Source":"ETW","LogEntry":{"Time":"2024-03-05T14:07:00.000Z","ProviderName":"Named-Provider","ProviderId":"{0F0E0D0C-0B0A-0908-0706-050403020100}","DecodingSource":"DecodingSourceXMLFile","Execution":{"ProcessId":0,"ThreadId":0},"Level":"Error","Keyword":"0x8000000000000000","EventId":"7","EventData":{}},"SchemaVersion":"1.0.0"}` + "\r\n" +
		"[2024-03-05T14:07:00.000Z][LOGMONITOR] INFO: Entrypoint processs exit code: 0\r\n"
	if out != want || code != 0 {
		t.Fatalf("LogMonitor printed (%d)\n%s\nwant\n%s", code, out, want)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, "{") && !json.Valid([]byte(strings.TrimSpace(l))) {
			t.Errorf("not JSON: %s", l)
		}
	}
}

// Keywords select events by their keyword bits; an invalid level is
// warned about and Error used; XML is EtwXMLFormat.
func TestETWKeywordsLevelAndXML(t *testing.T) {
	sys := newSys(t, map[string]string{`C:\LogMonitor\LogMonitorConfig.json`: `{"LogConfig": {"logFormat": "XML", "sources": [
		{"type": "ETW", "providers": [
			{"providerGuid": "{0F0E0D0C-0B0A-0908-0706-050403020100}", "level": "Loud", "keywords": "0x8000000000000000"}]}]}}`})
	sys.Programs["etwapp"] = etwApp
	out, _ := runLM(t, sys, "etwapp")
	want := "[2024-03-05T14:07:00.000Z][LOGMONITOR] WARNING: Error parsing configuration file. 'Loud' isn't a valid log level. Setting 'Error' level as default\r\n" +
		"<Log><Source>ETW</Source><LogEntry><Time>2024-03-05T14:07:00.000Z</Time><ProviderName>Named-Provider</ProviderName><ProviderId>{0F0E0D0C-0B0A-0908-0706-050403020100}</ProviderId><DecodingSource>DecodingSourceXMLFile</DecodingSource><Execution><ProcessId>0</ProcessId><ThreadId>0</ThreadId></Execution><Level>Error</Level><Keyword>0x8000000000000000</Keyword><EventId>7</EventId><EventData></EventData></LogEntry></Log>\r\n" +
		"[2024-03-05T14:07:00.000Z][LOGMONITOR] INFO: Entrypoint processs exit code: 0\r\n"
	if out != want {
		t.Fatalf("LogMonitor printed\n%s\nwant\n%s", out, want)
	}
}
