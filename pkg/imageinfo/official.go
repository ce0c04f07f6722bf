package imageinfo

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/sets"
)

// officialImage reports whether a repository can exist as far as the
// catalog knows: anything outside Docker Hub's library namespace, and in
// it the Docker Official Images (current and deprecated ones, whose tags
// stay pullable). The library namespace is curated, so any other name
// there, such as the "webserver:404" upstream's tests use as an image that
// never pulls, does not exist.
func officialImage(repository string) bool {
	name, ok := strings.CutPrefix(repository, dockerHub+"/"+dockerLibrary+"/")
	return !ok || officialImages.Has(name)
}

// officialImages are the repositories of Docker Hub's library namespace
// (docker-library/official-images, library/ files), current and
// deprecated.
var officialImages = sets.New(
	"adminer", "aerospike", "almalinux", "alpine", "alt", "amazoncorretto", "amazonlinux", "api-firewall",
	"arangodb", "archlinux", "backdrop", "bash", "bonita", "buildpack-deps", "busybox", "caddy",
	"cassandra", "celery", "centos", "chronograf", "cirros", "clearlinux", "clefos", "clickhouse",
	"clojure", "composer", "consul", "convertigo", "couchbase", "couchdb", "crate", "crux", "dart",
	"debian", "django", "docker", "drupal", "eclipse-mosquitto", "eclipse-temurin", "eggdrop",
	"elasticsearch", "elixir", "emqx", "erlang", "euleros", "express-gateway", "fedora", "flink",
	"fluentd", "friendica", "fsharp", "gazebo", "gcc", "geonetwork", "ghost", "glassfish", "golang",
	"gradle", "groovy", "haproxy", "haskell", "haxe", "hello-seattle", "hello-world", "hitch", "httpd",
	"hylang", "ibm-semeru-runtimes", "ibmjava", "influxdb", "iojs", "irssi", "java", "jenkins", "jetty",
	"jobber", "joomla", "jruby", "julia", "kaazing-gateway", "kapacitor", "kibana", "known", "kong",
	"krakend", "lightstreamer", "liquibase", "logstash", "mageia", "mariadb", "matomo", "maven",
	"mediawiki", "memcached", "mongo", "mongo-express", "monica", "mono", "mysql", "nats",
	"nats-streaming", "neo4j", "neurodebian", "nextcloud", "nginx", "node", "notary", "nuxeo", "odoo",
	"open-liberty", "openjdk", "opensuse", "oraclelinux", "orientdb", "owncloud", "percona", "perl",
	"photon", "php", "php-zendserver", "phpmyadmin", "piwik", "plone", "postfixadmin", "postgres",
	"pypy", "python", "r-base", "rabbitmq", "rails", "rakudo-star", "rapidoid", "redis", "redmine",
	"registry", "rethinkdb", "rocket.chat", "rockylinux", "ros", "ruby", "rust", "sapmachine",
	"satosa", "scratch", "sentry", "silverpeas", "sl", "solr", "sonarqube", "sourcemage", "spark",
	"spiped", "storm", "swarm", "swift", "swipl", "teamspeak", "telegraf", "thrift", "tomcat", "tomee",
	"traefik", "ubuntu", "ubuntu-debootstrap", "ubuntu-upstart", "unit", "varnish", "vault",
	"websphere-liberty", "wordpress", "xwiki", "yourls", "znc", "zookeeper",
)
